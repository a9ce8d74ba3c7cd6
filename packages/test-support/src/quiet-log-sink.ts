/** The global through which the quiet test environment receives log lines from inside the test's context. */
export const QUIET_LOG_SINK = '__mmmqQuietLogSink';

export type QuietLogSink = (line: string) => void;
