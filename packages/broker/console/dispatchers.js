// Dispatchers (push and pull consumers) and their subscriptions: state, lag, errors; add, edit and delete.
import { api, segment } from './api.js';
import { dataTable } from './data-table.js';
import { field, formatNumber, formatTime, h, statusLine, table } from './dom.js';
import { every } from './poll.js';
import { seekForm } from './seek.js';

/** How often the subscription table is refreshed. */
const POLL_MS = 2000;

export async function dispatchersPage(main) {
  const status = statusLine();
  const dispatcherList = h('div');
  const subscriptionList = subscriptionsTable();
  const lists = h(
    'div',
    {},
    dispatcherList,
    subscriptionList.element,
    h('p', {}, 'Each push host’s backoff and last error: ', h('a', { href: '#/members' }, 'Members'), '.'),
  );
  const form = dispatcherForm(status, () => refresh());
  const refresh = async () => {
    const [dispatchers, subscriptions] = await Promise.all([api('GET', '/mmmq/dispatchers'), api('GET', '/mmmq/subscriptions')]);
    dispatcherList.replaceChildren(dispatchersTable(dispatchers, form, status, refresh));
    subscriptionList.update(subscriptions);
  };
  const seek = seekForm(() => refresh());
  main.replaceChildren(h('h1', {}, 'Dispatchers and subscriptions'), status.element, lists, form.element, seek);
  await refresh();
  return every(POLL_MS, async () => {
    // Not while a button in the tables' rows has the focus: the refresh would take it away.
    if (!document.activeElement?.closest('tbody')) await refresh();
  });
}

function dispatchersTable(dispatchers, form, status, refresh) {
  const remove = async (consumerId) => {
    if (!confirm(`Delete dispatcher ${consumerId}? Its subscriptions and their positions are deleted too.`)) return;
    try {
      await api('DELETE', `/mmmq/dispatchers/${segment(consumerId)}`);
      status.say(`Dispatcher ${consumerId} deleted.`);
      await refresh();
    } catch (error) {
      status.say(`Deleting ${consumerId} failed: ${error.message}`, true);
    }
  };
  return table(
    'Dispatchers',
    [
      { label: 'Consumer' },
      { label: 'Push hosts' },
      { label: 'Patterns' },
      { label: 'Start from' },
      { label: 'Batch', number: true },
      { label: 'Max in flight', number: true },
      { label: 'Ordered' },
      { label: 'Max deliveries', number: true },
      { label: 'Exclusive' },
      { label: 'Selector' },
      { label: 'Actions' },
    ],
    dispatchers.map((d) => [
      d.consumerId,
      hostsOf(d).join('\n') || 'none (pull)',
      patternsOf(d).join(', '),
      typeof d.startFrom === 'object' ? `time ${d.startFrom.time}` : d.startFrom,
      formatNumber(d.batchSize),
      formatNumber(d.maxInFlight),
      d.ordered === false ? 'no' : 'yes',
      formatNumber(d.maxDeliveries),
      d.exclusive ? 'yes' : 'no',
      d.selector ?? '—',
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', class: 'secondary', 'aria-label': `Edit ${d.consumerId}`, onclick: () => form.edit(d) }, 'Edit'),
        h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `Delete ${d.consumerId}`, onclick: () => void remove(d.consumerId) },
          'Delete',
        ),
        h('a', { href: `#/dead-letters/${encodeURIComponent(d.consumerId)}` }, 'Dead letters'),
      ),
    ]),
    'No dispatchers yet: add one below.',
  );
}

function subscriptionsTable() {
  const count = (label, stat) => ({ label, number: true, value: (s) => s.stats[stat] });
  return dataTable({
    caption: 'Subscriptions (one per consumer and topic)',
    filterLabel: 'Filter subscriptions',
    empty: 'No subscriptions.',
    columns: [
      { label: 'Consumer', value: (s) => s.consumerId },
      { label: 'Topic', value: (s) => s.topic },
      { label: 'State', value: (s) => s.state },
      { label: 'Position', number: true, value: (s) => s.position },
      { label: 'Lag', number: true, value: (s) => s.lag },
      { label: 'In flight', number: true, value: (s) => s.leased },
      { label: 'Receiving member', value: (s) => s.activeMember },
      count('Delivered', 'delivered'),
      count('Redelivered', 'redelivered'),
      count('NACKed', 'nacked'),
      count('Dead-lettered', 'deadLettered'),
      count('Failures', 'failures'),
      {
        label: 'Last error',
        value: (s) => s.stats.lastError,
        cell: (s) => (s.stats.lastError ? `${s.stats.lastError} (${formatTime(s.stats.lastErrorAt)})` : '—'),
      },
      {
        label: 'Last seek',
        value: (s) => s.stats.lastSeek?.at,
        cell: (s) => (s.stats.lastSeek ? `${s.stats.lastSeek.from} → ${s.stats.lastSeek.to} (${formatTime(s.stats.lastSeek.at)})` : '—'),
      },
    ],
  });
}

/** The add form, which also edits a dispatcher (PUT, consumer id fixed). */
function dispatcherForm(status, refresh) {
  const heading = h('h2', { id: 'dispatcher-form-heading' }, 'Add a dispatcher');
  const inputs = {
    consumerId: h('input', { name: 'consumerId', required: true, autocomplete: 'off' }),
    hosts: h('textarea', { name: 'hosts', rows: 2 }),
    patterns: h('textarea', { name: 'patterns', rows: 2, required: true }),
    startFrom: h(
      'select',
      { name: 'startFrom' },
      h('option', { value: 'earliest' }, 'earliest'),
      h('option', { value: 'latest' }, 'latest'),
      h('option', { value: 'time' }, 'a time'),
    ),
    startTime: h('input', { name: 'startTime', autocomplete: 'off', placeholder: '2026-12-07T09:00:00Z' }),
    maxDeliveries: h('input', { name: 'maxDeliveries', type: 'number', min: 1, step: 1 }),
    batchSize: h('input', { name: 'batchSize', type: 'number', min: 1, step: 1 }),
    maxInFlight: h('input', { name: 'maxInFlight', type: 'number', min: 1, step: 1 }),
    ackTimeoutMs: h('input', { name: 'ackTimeoutMs', type: 'number', min: 1, step: 1 }),
    selector: h('input', { name: 'selector', autocomplete: 'off' }),
    signingSecret: h('input', { name: 'signingSecret', type: 'password', autocomplete: 'off' }),
    exclusive: h('input', { name: 'exclusive', type: 'checkbox' }),
    unordered: h('input', { name: 'unordered', type: 'checkbox' }),
  };
  const submit = h('button', { type: 'submit' }, 'Add dispatcher');
  const cancel = h('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => reset() }, 'Cancel editing');
  let editing;
  /** Settings the form has no field for, kept as they are by an edit. */
  let kept = {};
  /** Whether the dispatcher being edited signs its pushes. */
  let signed = false;

  const reset = () => {
    editing = undefined;
    kept = {};
    signed = false;
    element.reset();
    inputs.consumerId.readOnly = false;
    heading.textContent = 'Add a dispatcher';
    submit.textContent = 'Add dispatcher';
    cancel.hidden = true;
  };
  const body = () => {
    const lines = (text) =>
      text
        .split(/[\n,]/)
        .map((line) => line.trim())
        .filter((line) => line !== '');
    const result = {
      ...kept,
      consumerId: inputs.consumerId.value.trim(),
      hosts: lines(inputs.hosts.value),
      patterns: lines(inputs.patterns.value),
      startFrom: inputs.startFrom.value === 'time' ? { time: inputs.startTime.value.trim() } : inputs.startFrom.value,
      exclusive: inputs.exclusive.checked,
      ...(inputs.unordered.checked ? { ordered: false } : {}),
    };
    for (const name of ['maxDeliveries', 'batchSize', 'maxInFlight', 'ackTimeoutMs']) {
      if (inputs[name].value !== '') result[name] = Number(inputs[name].value);
    }
    if (inputs.selector.value.trim() !== '') result.selector = inputs.selector.value.trim();
    if (inputs.signingSecret.value !== '') result.signingSecret = inputs.signingSecret.value;
    return result;
  };
  const element = h(
    'form',
    {
      'aria-labelledby': 'dispatcher-form-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const definition = body();
        if (signed && definition.signingSecret === undefined) {
          if (!confirm(`${editing} signs its pushes. Saving without its signing secret makes them unsigned. Save anyway?`)) return;
        }
        try {
          if (editing === undefined) await api('POST', '/mmmq/dispatchers', definition);
          else await api('PUT', `/mmmq/dispatchers/${segment(editing)}`, definition);
          status.say(`Dispatcher ${definition.consumerId} ${editing === undefined ? 'added' : 'saved'}.`);
          reset();
          await refresh();
        } catch (error) {
          status.say(`The broker refused the dispatcher: ${error.message}`, true);
        }
      },
    },
    field('Consumer id', inputs.consumerId),
    field('Push hosts', inputs.hosts, 'One URL a line, like http://billing:8080; none for a pull consumer.'),
    field('Topic patterns', inputs.patterns, 'One a line: order.created, order.*, audit.**'),
    field('Start from', inputs.startFrom, 'Where a new subscription starts: every retained message, only new ones, or from a time.'),
    field('Start time', inputs.startTime, 'With "a time": ISO 8601 with its zone; the first message published at or after it.'),
    field('Max deliveries', inputs.maxDeliveries, 'Empty: the broker default.'),
    field('Batch size', inputs.batchSize, 'Empty: 1.'),
    field('Max in flight', inputs.maxInFlight, 'Empty: the broker default.'),
    field('Ack timeout (ms)', inputs.ackTimeoutMs, 'Empty: the broker default.'),
    field('Selector', inputs.selector, "Optional, over headers: region = 'eu'"),
    field(
      'Signing secret',
      inputs.signingSecret,
      'Optional; signs the pushes. Never shown again: enter it again when editing a signed dispatcher, or signing stops.',
    ),
    field('Exclusive (one member receives at a time)', inputs.exclusive),
    field(
      'Unordered pushes',
      inputs.unordered,
      'The pushes in flight are independent (not numbered), for a consumer that handles each as it comes; messages with an ordering key keep their order. Empty max in flight: 8.',
    ),
    h('div', { class: 'actions' }, submit, cancel),
  );
  return {
    element: h('section', {}, heading, element),
    edit(definition) {
      editing = definition.consumerId;
      signed = definition.signed === true;
      kept = definition.maxBacklog === undefined ? {} : { maxBacklog: definition.maxBacklog, backlogOverflow: definition.backlogOverflow };
      inputs.consumerId.value = definition.consumerId;
      inputs.consumerId.readOnly = true;
      inputs.hosts.value = hostsOf(definition).join('\n');
      inputs.patterns.value = patternsOf(definition).join('\n');
      const time = typeof definition.startFrom === 'object';
      inputs.startFrom.value = time ? 'time' : definition.startFrom;
      inputs.startTime.value = time ? definition.startFrom.time : '';
      inputs.maxDeliveries.value = String(definition.maxDeliveries);
      inputs.batchSize.value = String(definition.batchSize);
      inputs.maxInFlight.value = String(definition.maxInFlight);
      inputs.ackTimeoutMs.value = String(definition.ackTimeoutMs);
      inputs.selector.value = definition.selector ?? '';
      inputs.signingSecret.value = '';
      inputs.exclusive.checked = definition.exclusive;
      inputs.unordered.checked = definition.ordered === false;
      heading.textContent = `Edit dispatcher ${definition.consumerId}`;
      submit.textContent = 'Save dispatcher';
      cancel.hidden = false;
      inputs.hosts.focus();
    },
  };
}

function hostsOf(definition) {
  const hosts = definition.hosts ?? (definition.host ? [definition.host] : []);
  return hosts.map(
    (host) => `${host.protocol.toLowerCase()}://${host.address.includes(':') ? `[${host.address}]` : host.address}:${host.port}`,
  );
}

function patternsOf(definition) {
  return definition.patterns ?? (definition.pattern ? [definition.pattern] : []);
}
