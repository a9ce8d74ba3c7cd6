// Moved to @mmmq/test-support; this path stays for the tests that import it.
export { Gate } from '@mmmq/test-support';
