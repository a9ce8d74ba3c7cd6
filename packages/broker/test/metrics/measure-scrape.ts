/**
 * Figures of a `/metrics` scrape with many topics: bytes of the text, the longest event-loop turn the scrape held
 * (a setImmediate chain beside it) and its wall time, at 10,000 and 100,000 topics, each read by one subscription.
 * The topics are views (name, offsets, sizes), not topics with files: 100,000 real topics need 300,000 descriptors.
 *
 *   npx tsc -b tsconfig.build.json   # @mmmq/core from its build
 *   npx ts-node --transpile-only packages/broker/test/metrics/measure-scrape.ts [topics…]
 */
import { ManyTopics, measureScrape } from './many-topics.fixture';

async function main(): Promise<void> {
  const counts = process.argv.slice(2).map(Number);
  for (const topics of counts.length > 0 ? counts : [10_000, 100_000]) {
    const broker = new ManyTopics(topics);
    await broker.metrics.scrape(); // the first scrape fills the slots
    for (let run = 1; run <= 3; run++) {
      const { bytes, longestStallMs, totalMs, turns } = await measureScrape(() => broker.metrics.scrape());
      console.log(
        `${topics} topics, scrape ${run}: ${bytes} bytes, longest stall ${longestStallMs.toFixed(1)} ms, ` +
          `${totalMs.toFixed(0)} ms in ${turns} turns`,
      );
    }
  }
}

void main();
