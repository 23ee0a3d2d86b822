// F Files over SMB: what a REST caller sees while an SMB client holds a file
// open. The suite has no SMB client, so these rows are MANUAL: the message is
// the procedure a person follows against a live share.
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { manual } from "../../fixtures/wire/signals.ts";
import { fileCell, fileSource } from "./file-kit.ts";

const MOUNT =
  "Needs an SMB client. By hand, on Windows: net use Z: \\\\<account>.file.core.windows.net\\<share> /user:localhost\\<account> <key>, create Z:\\f.txt";

const rows: RowDef[] = [
  {
    id: "file/smb/sharing-violation",
    matrix: fileCell("sharing-violation"),
    title: "A file an SMB client holds open with share mode None: REST operations on it → 409 SharingViolation",
    level: "doc",
    source: fileSource("Azure Files error codes (SharingViolation)"),
    service: "file",
    async run() {
      manual(
        `${MOUNT}, hold it open with share mode None (PowerShell: $h = [IO.File]::Open('Z:\\f.txt','Open','ReadWrite','None')). ` +
          "Meanwhile over REST, Put Range, Set File Metadata and Delete File on f.txt must each answer 409 SharingViolation; after $h.Close() f.txt reads back unchanged.",
      );
    },
  },
  {
    id: "file/smb/delete-pending",
    matrix: fileCell("delete-pending"),
    title: "A file an SMB client marked for delete: REST operations → 409 SMBDeletePending (or DeletePending); absent from List Files",
    level: "doc",
    source: fileSource("Azure Files error codes (SMBDeletePending; DeletePending in the error table)"),
    service: "file",
    async run() {
      manual(
        `${MOUNT}, hold it open sharing delete ($h = [IO.File]::Open('Z:\\f.txt','Open','ReadWrite','ReadWrite,Delete')), then Remove-Item Z:\\f.txt: it stays delete-pending while $h is open. ` +
          "Meanwhile over REST, Get File Properties and Put Range on f.txt must answer 409 SMBDeletePending (DeletePending in the error table: disputed, record which) and List Files and Directories must not list it; after $h.Close(), 404.",
      );
    },
  },
];

defineTable({ table: "F Files (SMB)", service: "file" }, rows);
