// The overview: publish and delivery rates and lag, from successive polls of the topic and subscription lists.
import { api } from './api.js';
import { formatNumber, formatRate, h, table } from './dom.js';
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
  };
  const card = (label, value) => h('div', {}, h('dt', {}, label), value);
  const updated = h('p', { class: 'hint' });
  const tables = h('div');
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
    ),
    updated,
    tables,
  );

  let previous;
  const poll = async () => {
    const [{ topics }, subscriptions] = await Promise.all([api('GET', '/mmmq/topics'), api('GET', '/mmmq/subscriptions')]);
    const sample = { at: performance.now(), topics, subscriptions };
    const seconds = previous && (sample.at - previous.at) / 1000;
    // A topic or subscription that is new since the last poll started at 0.
    const rate = (now, before) => (!seconds ? undefined : Math.max(0, now - (before ?? 0)) / seconds);
    const tailBefore = new Map(previous?.topics.map((topic) => [topic.name, topic.tailOffset]));
    const deliveredBefore = new Map(previous?.subscriptions.map((s) => [key(s), s.stats.delivered]));
    const userTopics = topics.filter((topic) => !topic.reserved);
    const topicRates = userTopics.map((topic) => rate(topic.tailOffset, tailBefore.get(topic.name)));
    const subscriptionRates = subscriptions.map((s) => rate(s.stats.delivered, deliveredBefore.get(key(s))));

    metrics.publishRate.textContent = formatRate(sum(topicRates));
    metrics.deliveryRate.textContent = formatRate(sum(subscriptionRates));
    metrics.lag.textContent = formatNumber(subscriptions.reduce((total, s) => total + s.lag, 0));
    metrics.topics.textContent = formatNumber(userTopics.length);
    metrics.subscriptions.textContent = formatNumber(subscriptions.length);
    updated.textContent = `Updated ${new Date().toLocaleTimeString('en')}; rates are averaged between two updates, ${POLL_MS / 1000} s apart.`;
    tables.replaceChildren(
      h('h2', {}, 'Subscriptions'),
      table(
        'Lag and delivery rate of each subscription',
        [
          { label: 'Consumer' },
          { label: 'Topic' },
          { label: 'State' },
          { label: 'Lag', number: true },
          { label: 'In flight', number: true },
          { label: 'Delivered/s', number: true },
        ],
        subscriptions.map((s, i) => [
          s.consumerId,
          s.topic,
          s.state,
          formatNumber(s.lag),
          formatNumber(s.leased),
          formatRate(subscriptionRates[i]),
        ]),
        'No subscriptions: add a dispatcher.',
      ),
      h('h2', {}, 'Topics'),
      table(
        'Publish rate of each topic',
        [
          { label: 'Topic' },
          { label: 'Messages', number: true },
          { label: 'Tail offset', number: true },
          { label: 'Published/s', number: true },
        ],
        userTopics.map((topic, i) => [
          h('a', { href: `#/topics/${encodeURIComponent(topic.name)}` }, topic.name),
          formatNumber(topic.messages),
          formatNumber(topic.tailOffset),
          formatRate(topicRates[i]),
        ]),
        'No topics yet: publish a message.',
      ),
    );
    previous = sample;
  };
  await poll();
  return every(POLL_MS, poll);
}

function key(subscription) {
  return `${subscription.topic}\u0000${subscription.consumerId}`;
}

function sum(values) {
  return values.some((value) => value === undefined) ? undefined : values.reduce((total, value) => total + value, 0);
}
