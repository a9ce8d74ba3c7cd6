// Replay and seek: moves a consumer's subscriptions to an offset, a time, the beginning or the end, after a dry run
// that shows what it would re-deliver and skip (POST /mmmq/consumers/{id}/seek).
import { api, segment } from './api.js';
import { field, formatNumber, h, statusLine, table } from './dom.js';

/** The seek section of the dispatchers page; `refresh` redraws the subscriptions after a seek. */
export function seekForm(refresh) {
  const status = statusLine();
  const result = h('div');
  const inputs = {
    consumerId: h('input', { name: 'seekConsumerId', required: true, autocomplete: 'off' }),
    topic: h('input', { name: 'seekTopic', autocomplete: 'off' }),
    to: h(
      'select',
      { name: 'seekTo' },
      h('option', { value: 'time' }, 'a time'),
      h('option', { value: 'offset' }, 'an offset'),
      h('option', { value: 'beginning' }, 'the beginning'),
      h('option', { value: 'end' }, 'the end'),
    ),
    at: h('input', { name: 'seekAt', autocomplete: 'off', placeholder: '2026-12-07T09:00:00Z or 1200' }),
    force: h('input', { name: 'seekForce', type: 'checkbox' }),
  };
  const request = (dryRun) => {
    const to = inputs.to.value;
    const at = inputs.at.value.trim();
    const body = {
      to: to === 'time' ? { time: at } : to === 'offset' ? { offset: Number(at) } : to,
      dryRun,
      force: inputs.force.checked,
    };
    if (inputs.topic.value.trim() !== '') body.topic = inputs.topic.value.trim();
    return body;
  };
  const run = async (dryRun) => {
    const consumerId = inputs.consumerId.value.trim();
    if (!element.reportValidity()) return;
    try {
      const answer = await api('POST', `/mmmq/consumers/${segment(consumerId)}/seek`, request(dryRun));
      result.replaceChildren(rowsOf(answer));
      const verb = dryRun ? 'would re-deliver' : 're-delivers';
      status.say(
        `${dryRun ? 'Dry run: ' : 'Moved: '}${consumerId} ${verb} ${formatNumber(answer.redeliver)} and skip${dryRun ? '' : 's'} ` +
          `${formatNumber(answer.skip)} message(s); ${formatNumber(answer.released)} lease(s) ${dryRun ? 'would end' : 'ended'}.`,
      );
      if (!dryRun) await refresh();
    } catch (error) {
      status.say(`The broker refused the seek: ${error.message}`, true);
    }
  };
  const element = h(
    'form',
    {
      'aria-labelledby': 'seek-heading',
      onsubmit: (event) => {
        event.preventDefault();
        void run(true);
      },
    },
    field('Consumer to move', inputs.consumerId),
    field('Only topic', inputs.topic, 'Empty: every topic the consumer reads.'),
    field('Move to', inputs.to),
    field('Time or offset', inputs.at, 'A time needs its zone (Z or +01:00); the first message published at or after it.'),
    field('Force (even while another member holds an exclusive subscription)', inputs.force),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'secondary' }, 'Preview seek'),
      h('button', { type: 'button', class: 'danger', onclick: () => void run(false) }, 'Seek'),
    ),
  );
  return h(
    'section',
    {},
    h('h2', { id: 'seek-heading' }, 'Replay or skip (seek)'),
    h('p', {}, 'Moves the subscriptions of a consumer; its leases end. Preview first: it changes nothing.'),
    element,
    status.element,
    result,
  );
}

function rowsOf(answer) {
  return table(
    answer.dryRun ? 'What the seek would do' : 'What the seek did',
    [
      { label: 'Topic' },
      { label: 'From', number: true },
      { label: 'To', number: true },
      { label: 'Re-deliver', number: true },
      { label: 'Skip', number: true },
      { label: 'Leases ended', number: true },
    ],
    answer.subscriptions.map((row) => [
      row.topic,
      formatNumber(row.from),
      formatNumber(row.to),
      formatNumber(row.redeliver),
      formatNumber(row.skip),
      formatNumber(row.released),
    ]),
    'The consumer reads no topic yet.',
  );
}
