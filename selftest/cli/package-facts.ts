// What the published package must be, shared by the package self-test and
// the docs self-test (the README states the budget).

/** Unpacked size budget of the tarball, in bytes (README: "1.4 MB"). */
export const UNPACKED_BUDGET_BYTES = 1_400_000;

/** The only paths the tarball may hold: the compiled runtime, the data it reads, and npm's own files. */
export const ALLOWED_IN_TARBALL: RegExp[] = [
  /^dist\/.+\.(js|d\.ts)$/,
  /^dist\/fixtures\/azurite\/azurite-host\.cjs$/,
  /^expectations\/[^/]+\.json$/,
  /^catalogue\/[^/]+\.txt$/,
  // Each row's basis, read by the registry (fixtures/harness/registry.ts).
  /^catalogue\/basis\.json$/,
  /^(package\.json|README\.md|LICENSE|\.env\.example)$/,
];

/** What the runtime never needs: self-tests, benches, TypeScript sources, build and CI files. */
export const FORBIDDEN_IN_TARBALL: RegExp[] = [
  /(^|\/)selftest\//,
  /(^|\/)bench\//,
  /(?<!\.d)\.ts$/,
  /^tsconfig/,
  /^\.(github|ci)\//,
  /^action\.yml$/,
  /^docs\//,
  /(^|\/)reports\//,
];
