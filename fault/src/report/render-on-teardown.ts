import { writeReliabilityDoc } from './reliability-doc';

/** Jest `globalTeardown`: regenerates the tier's report from every scenario's latest results. */
export default function renderOnTeardown(): void {
  writeReliabilityDoc();
}
