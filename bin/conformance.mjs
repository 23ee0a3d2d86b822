#!/usr/bin/env node
// The installed command (`npx azure-storage-concurrency-conformance …`): the
// suite is TypeScript run directly, so register tsx's loader through its API
// (no --import flag needed, works from node_modules), then run the CLI.
import { register } from "tsx/esm/api";

register();
await import("./conformance.ts");
