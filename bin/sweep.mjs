#!/usr/bin/env node
// The installed sweep command (`npx -p azure-storage-concurrency-conformance
// azure-storage-concurrency-sweep --older-than 2h`); see bin/sweep.ts.
import { register } from "tsx/esm/api";

register();
const { cli } = await import("./sweep.ts");
cli();
