// The broker's last 15 minutes of rates and lag (GET /mmmq/console/data/history): loaded whole once, then only the
// samples taken since, so a reload keeps the charts and a poll moves a few numbers.
import { api } from './api.js';

const HISTORY_PATH = '/mmmq/console/data/history';

/** Returns `poll()`, which resolves to the whole history so far, newest samples merged in. */
export function historyFeed() {
  let history;
  return async function poll() {
    const update = await api('GET', history === undefined ? HISTORY_PATH : `${HISTORY_PATH}?since=${history.sequence}`);
    history = history === undefined ? update : merge(history, update);
    return history;
  };
}

/** `update`'s samples appended to `history`'s, each series matched by its name, the oldest dropped past capacity. */
function merge(history, update) {
  const keep = Math.min(update.capacity, history.times.length + update.times.length);
  const join = (old, added, oldLength) => [...(old ?? new Array(oldLength).fill(null)), ...added].slice(-keep);
  const oldLength = history.times.length;
  const topics = new Map(history.topics.map((series) => [series.topic, series]));
  const subscriptions = new Map(history.subscriptions.map((series) => [`${series.topic}\0${series.consumerId}`, series]));
  return {
    ...update,
    times: join(history.times, update.times, oldLength),
    totals: {
      published: join(history.totals.published, update.totals.published, oldLength),
      delivered: join(history.totals.delivered, update.totals.delivered, oldLength),
      lag: join(history.totals.lag, update.totals.lag, oldLength),
    },
    topics: update.topics.map((series) => ({
      topic: series.topic,
      published: join(topics.get(series.topic)?.published, series.published, oldLength),
    })),
    subscriptions: update.subscriptions.map((series) => {
      const old = subscriptions.get(`${series.topic}\0${series.consumerId}`);
      return {
        topic: series.topic,
        consumerId: series.consumerId,
        delivered: join(old?.delivered, series.delivered, oldLength),
        lag: join(old?.lag, series.lag, oldLength),
      };
    }),
  };
}

/** The newest value of a series, or undefined. */
export function newest(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i];
  return undefined;
}

/** The time the charts span: the samples kept, at least a minute (a broker just started has only a few). */
export function windowOf(history) {
  const span = history.times.length < 2 ? 0 : history.times[history.times.length - 1] - history.times[0];
  return Math.min(history.capacity * history.intervalMs, Math.max(60_000, span));
}
