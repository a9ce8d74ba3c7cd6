// Moved to @mmmq/test-support; this path stays for tests that import it.
export { createSelfSignedCertificate, type SelfSignedCertificate } from '@mmmq/test-support';
