// A topic's own charts on its page: its publish rate, and the lag and delivery rate of each consumer reading it.
import { lineChart } from './chart.js';
import { h } from './dom.js';
import { historyFeed, windowOf } from './history.js';
import { every } from './poll.js';

/** How often the charts move. */
const POLL_MS = 1000;

/** The charts of topic `name` and `start()`, which draws them now and every second until the function it returns. */
export function topicCharts(name) {
  const charts = {
    published: lineChart({ title: `Published to ${name} (messages/s)`, unit: 'msg/s', empty: 'Nothing published in the last 15 minutes.' }),
    delivered: lineChart({
      title: 'Delivered per consumer (messages/s)',
      unit: 'msg/s',
      empty: 'Nothing delivered in the last 15 minutes.',
    }),
    lag: lineChart({ title: 'Lag per consumer (messages)', unit: 'messages', empty: 'No lag in the last 15 minutes.' }),
  };
  const element = h(
    'section',
    { class: 'charts', 'aria-label': `${name} over the last 15 minutes` },
    charts.published.element,
    charts.delivered.element,
    charts.lag.element,
  );
  const history = historyFeed();
  const draw = async () => {
    const samples = await history();
    const common = { times: samples.times, windowMs: windowOf(samples) };
    const own = samples.topics.find((series) => series.topic === name);
    const readers = samples.subscriptions.filter((series) => series.topic === name);
    charts.published.update({ ...common, series: own ? [{ label: name, values: own.published }] : [] });
    charts.delivered.update({ ...common, series: readers.map((series) => ({ label: series.consumerId, values: series.delivered })) });
    charts.lag.update({ ...common, series: readers.map((series) => ({ label: series.consumerId, values: series.lag })) });
  };
  return {
    element,
    async start() {
      await draw();
      return every(POLL_MS, draw);
    },
  };
}
