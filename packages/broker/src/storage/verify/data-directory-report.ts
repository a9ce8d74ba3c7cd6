/** Something a broker's recovery would repair, or could not: the data directory fails verification. */
export interface VerifyProblem {
  /** Path of the damaged file, relative to the data directory. */
  file: string;
  /** Byte position in the file where the damage starts, when one place can be named. */
  offset?: number;
  /** What is wrong and what recovery does about it, in the words of the broker's recovery log. */
  description: string;
}

/** Something recovery would act on that is no damage (a crash's unacknowledged tail, records to replay). */
export interface VerifyNote {
  file: string;
  description: string;
}

/** What {@link verifyDataDirectory} found. */
export interface DataDirectoryReport {
  rootDir: string;
  /** Journal, segment data, index and checkpoint files read. */
  filesChecked: number;
  bytesChecked: number;
  topics: number;
  problems: VerifyProblem[];
  notes: VerifyNote[];
  /** No problems: a broker would start on this directory without repairing anything. */
  ok: boolean;
}

/** Reported after each file. */
export interface VerifyProgress {
  filesChecked: number;
  filesTotal: number;
  bytesChecked: number;
  bytesTotal: number;
  /** The file just checked, relative to the data directory. */
  file: string;
}

export interface VerifyOptions {
  onProgress?: (progress: VerifyProgress) => void;
}
