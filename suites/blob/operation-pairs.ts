// The pairs of catalogue section S a blob record's request covers with a
// parameter, named as catalogue/surface.tsv names them (the request
// classifier's surfaceNameOfRequest on the record's request): what a row
// declares it covers (RowDef.surface).
import { surfaceNameOfRequest } from "../../fixtures/wire/operations.ts";
import type { BlobOperation, Subject } from "./operations.ts";

/** A subject with every field, to name a record's request (fixtures/wire/operations.ts, surfaceNameOfRequest). */
export const ANY_SUBJECT: Subject = { container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s", copyId: "id" };

/** The (operation, parameter) pair of catalogue section S a record's request covers with a parameter. */
export const surfacePair = (record: Pick<BlobOperation, "request">, parameter: string) => ({
  operation: surfaceNameOfRequest("blob", record.request(ANY_SUBJECT)),
  parameter,
});

/** The pairs of catalogue S a record's request covers with a parameter: none for an operation the SDKs lack. */
export const surfacePairs = (record: Pick<BlobOperation, "request" | "referenceOnly">, parameter: string) =>
  record.referenceOnly ? [] : [surfacePair(record, parameter)];
