export { verifyDataDirectory } from './verify-data-directory';
export type { DataDirectoryReport, VerifyNote, VerifyOptions, VerifyProblem, VerifyProgress } from './data-directory-report';
