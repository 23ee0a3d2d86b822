// One embedded Azurite per self-test process, started on first use and stopped
// when the process exits. Self-test files share it (each run uses its own
// resource-name prefix, so runs do not see each other's resources).
import { startAzurite, type EmbeddedAzurite } from "../fixtures/azurite/azurite.ts";

let azurite: Promise<EmbeddedAzurite> | undefined;

export function sharedAzurite(): Promise<EmbeddedAzurite> {
  if (!azurite) {
    azurite = startAzurite();
    azurite.then(
      (a) => {
        const stop = () => void a.stop();
        process.once("beforeExit", stop);
        process.once("exit", () => {
          // Last resort: 'exit' handlers cannot wait, so just signal the child.
          void a.stop();
        });
        for (const sig of ["SIGINT", "SIGTERM"] as const) {
          process.once(sig, () => {
            void a.stop().finally(() => process.exit(130));
          });
        }
      },
      () => {
        azurite = undefined;
      },
    );
  }
  return azurite;
}

/** Stops the shared Azurite now (the next sharedAzurite() starts a new one). */
export async function stopSharedAzurite(): Promise<void> {
  const a = azurite;
  azurite = undefined;
  if (a) await (await a).stop().catch(() => undefined);
}
