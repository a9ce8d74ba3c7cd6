import { useTempDir as useTestTempDir } from '@mmmq/test-support';

/** A fresh real directory per test, removed afterwards. */
export const useTempDir = (): (() => string) => useTestTempDir('mmmq-storage-');

export const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
