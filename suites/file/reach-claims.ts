// How far a file or share lease reaches (catalogue S, Shares and Files), as
// data: each resource a lease must leave alone, the row that shows it, and
// whether the lease's own ID sent there is refused as an ID on an unleased
// file. lease-reach.rows.ts and share-lease-kit.ts run it; the self-tests'
// file double makes of each line a lock that reaches too far (and of each
// refused ID, an ID taken there), selftest/file-double/surface-mutants.ts.

/** What a lease leaves alone, as the file double finds it on the wire. */
export type FileRelation =
  /** The share of the leased file. */
  | "share-of-file"
  /** Another file of the leased file's directory. */
  | "file-beside"
  /** A file of the same path as the leased file, in another share. */
  | "same-name-elsewhere"
  /** A file or directory of the leased share. */
  | "file-of-share";

export interface FileReach {
  /** The row that shows it. */
  row: string;
  lock: "file" | "share";
  relation: FileRelation;
  /** For people: "another file of the same directory". */
  label: string;
  /** The lease's ID sent there → 412 LeaseNotPresentWithFileOperation, unchanged (a file's ID on another file). */
  idRefused: boolean;
}

export const FILE_REACH: FileReach[] = [
  { row: "file/lease/reach/share", lock: "file", relation: "share-of-file", label: "the leased file's share", idRefused: false },
  {
    row: "file/lease/reach/sibling",
    lock: "file",
    relation: "file-beside",
    label: "another file of the same directory",
    idRefused: true,
  },
  {
    row: "file/lease/reach/sibling",
    lock: "file",
    relation: "same-name-elsewhere",
    label: "a file of the same name in another share",
    idRefused: true,
  },
  {
    row: "file/share-lease/files-unlocked",
    lock: "share",
    relation: "file-of-share",
    label: "the leased share's files and directories",
    idRefused: false,
  },
];

/** The line of a relation. */
export const reachOf = (relation: FileRelation): FileReach => FILE_REACH.find((r) => r.relation === relation)!;
