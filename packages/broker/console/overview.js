// The overview: publish and delivery rates and lag, now and over the last 15 minutes (the broker's samples, one a
// second), and every subscription and topic in tables that sort and filter.
import { api } from './api.js';
import { lineChart, MAX_LINES } from './chart.js';
import { dataTable } from './data-table.js';
import { formatNumber, formatRate, h } from './dom.js';
import { historyFeed, newest, windowOf } from './history.js';
import { every } from './poll.js';

/** How often the numbers are refreshed. */
const POLL_MS = 1000;

export async function overviewPage(main) {
  const metrics = {
    publishRate: h('dd', { id: 'overview-publish-rate' }, '—'),
    deliveryRate: h('dd', { id: 'overview-delivery-rate' }, '—'),
    lag: h('dd', { id: 'overview-lag' }, '—'),
    topics: h('dd', { id: 'overview-topics' }, '—'),
    subscriptions: h('dd', { id: 'overview-subscriptions' }, '—'),
    failing: h('a', { href: '#/members', id: 'overview-failing' }, '—'),
  };
  const card = (label, value) => h('div', {}, h('dt', {}, label), value);
  const charts = {
    published: lineChart({ title: 'Published per topic (messages/s)', unit: 'msg/s', empty: 'Nothing published in the last 15 minutes.' }),
    delivered: lineChart({
      title: 'Delivered per subscription (messages/s)',
      unit: 'msg/s',
      empty: 'Nothing delivered in the last 15 minutes.',
    }),
    lag: lineChart({ title: 'Lag per subscription (messages)', unit: 'messages', empty: 'No lag in the last 15 minutes.' }),
  };
  const subscriptions = subscriptionsTable();
  const topics = topicsTable();
  const updated = h('p', { class: 'hint' });
  main.replaceChildren(
    h('h1', {}, 'Overview'),
    h(
      'dl',
      { class: 'cards', 'aria-live': 'polite', 'aria-label': 'Live totals' },
      card('Published (messages/s)', metrics.publishRate),
      card('Delivered (messages/s)', metrics.deliveryRate),
      card('Lag (messages)', metrics.lag),
      card('Topics', metrics.topics),
      card('Subscriptions', metrics.subscriptions),
      card('Push members failing', h('dd', {}, metrics.failing)),
    ),
    updated,
    h(
      'section',
      { class: 'charts', 'aria-label': 'The last 15 minutes' },
      charts.published.element,
      charts.delivered.element,
      charts.lag.element,
    ),
    h('h2', {}, 'Subscriptions'),
    subscriptions.element,
    h('h2', {}, 'Topics'),
    topics.element,
  );

  const history = historyFeed();
  const poll = async () => {
    const [{ topics: allTopics }, rows, samples] = await Promise.all([
      api('GET', '/mmmq/topics'),
      api('GET', '/mmmq/subscriptions'),
      history(),
    ]);
    const userTopics = allTopics.filter((topic) => !topic.reserved);
    const topicRates = new Map(samples.topics.map((series) => [series.topic, newest(series.published)]));
    const subscriptionRates = new Map(samples.subscriptions.map((series) => [key(series), newest(series.delivered)]));

    metrics.publishRate.textContent = formatRate(newest(samples.totals.published));
    metrics.deliveryRate.textContent = formatRate(newest(samples.totals.delivered));
    metrics.lag.textContent = formatNumber(rows.reduce((total, s) => total + s.lag, 0));
    metrics.topics.textContent = formatNumber(userTopics.length);
    metrics.subscriptions.textContent = formatNumber(rows.length);
    // Backing off, or refused for their signature: the Members page says why.
    const failing = rows.flatMap((row) => row.members).filter((m) => m.backingOffUntil !== undefined || m.state === 'unauthorized');
    metrics.failing.textContent = formatNumber(failing.length);
    metrics.failing.classList.toggle('alarm', failing.length > 0);
    const { untracked } = samples;
    updated.textContent =
      `Updated ${new Date().toLocaleTimeString('en')}. Rates are the broker's, sampled every ${samples.intervalMs / 1000} s; ` +
      `the charts keep ${Math.round((samples.capacity * samples.intervalMs) / 60_000)} minutes and the busiest ${MAX_LINES} lines.` +
      (untracked.topics + untracked.subscriptions > 0
        ? ` ${untracked.topics} topic(s) and ${untracked.subscriptions} subscription(s) beyond the broker's series caps count in the totals only.`
        : '');

    const windowMs = windowOf(samples);
    charts.published.update({
      times: samples.times,
      windowMs,
      series: samples.topics.map((series) => ({ label: series.topic, values: series.published })),
    });
    charts.delivered.update({
      times: samples.times,
      windowMs,
      series: samples.subscriptions.map((series) => ({ label: `${series.consumerId} · ${series.topic}`, values: series.delivered })),
    });
    charts.lag.update({
      times: samples.times,
      windowMs,
      series: samples.subscriptions.map((series) => ({ label: `${series.consumerId} · ${series.topic}`, values: series.lag })),
    });
    subscriptions.update(rows.map((row) => ({ ...row, rate: subscriptionRates.get(key(row)) })));
    topics.update(userTopics.map((topic) => ({ ...topic, rate: topicRates.get(topic.name) })));
  };
  await poll();
  return every(POLL_MS, poll);
}

function subscriptionsTable() {
  return dataTable({
    caption: 'Lag and delivery rate of each subscription',
    filterLabel: 'Filter subscriptions',
    empty: 'No subscriptions: add a dispatcher.',
    sortBy: 3,
    descending: true,
    columns: [
      { label: 'Consumer', value: (s) => s.consumerId },
      { label: 'Topic', value: (s) => s.topic },
      { label: 'State', value: (s) => s.state },
      { label: 'Lag', number: true, value: (s) => s.lag },
      { label: 'In flight', number: true, value: (s) => s.leased },
      { label: 'Delivered/s', number: true, value: (s) => s.rate, cell: (s) => formatRate(s.rate) },
      { label: 'Delivered', number: true, value: (s) => s.stats.delivered },
      { label: 'Failures', number: true, value: (s) => s.stats.failures },
    ],
  });
}

function topicsTable() {
  return dataTable({
    caption: 'Publish rate of each topic',
    filterLabel: 'Filter topics',
    empty: 'No topics yet: publish a message.',
    columns: [
      {
        label: 'Topic',
        value: (topic) => topic.name,
        cell: (topic) => h('a', { href: `#/topics/${encodeURIComponent(topic.name)}` }, topic.name),
      },
      { label: 'Messages', number: true, value: (topic) => topic.messages },
      { label: 'Tail offset', number: true, value: (topic) => topic.tailOffset },
      { label: 'Published/s', number: true, value: (topic) => topic.rate, cell: (topic) => formatRate(topic.rate) },
    ],
  });
}

function key(subscription) {
  return `${subscription.topic}\u0000${subscription.consumerId}`;
}
