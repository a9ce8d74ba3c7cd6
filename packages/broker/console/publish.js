// Publishing a message by hand (POST /mmmq/messages, as any producer): a topic, headers and a JSON body. The console
// is served to admin tokens only, and the broker still checks the token's publish scope (its `topics`).
import { api } from './api.js';
import { field, h, statusLine } from './dom.js';

export async function publishPage(main) {
  const { topics } = await api('GET', '/mmmq/topics');
  const status = statusLine();
  const listId = 'publish-topics';
  const inputs = {
    topic: h('input', { name: 'topic', required: true, autocomplete: 'off', spellcheck: 'false', list: listId }),
    id: h('input', { name: 'id', autocomplete: 'off', spellcheck: 'false' }),
    headers: h('textarea', { name: 'headers', rows: 4, spellcheck: 'false', class: 'code' }),
    content: h('textarea', { name: 'content', rows: 10, required: true, spellcheck: 'false', class: 'code' }),
  };
  inputs.headers.value = '{}';
  inputs.content.value = '{\n  \n}';
  const submit = h('button', { type: 'submit' }, 'Publish');
  const form = h(
    'form',
    {
      class: 'stacked',
      'aria-labelledby': 'publish-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        const message = messageOf(inputs, status);
        if (message === undefined) return;
        submit.disabled = true;
        try {
          const ack = await api('POST', '/mmmq/messages', message);
          status.say(`Published to ${ack.topic} at offset ${ack.offset} (id ${ack.id}).`);
        } catch (error) {
          status.say(`The broker refused the message: ${error.message}`, true);
        } finally {
          submit.disabled = false;
        }
      },
    },
    field('Topic', inputs.topic, 'An existing topic (suggested as you type) or a new one: order.created'),
    field(
      'Message id',
      inputs.id,
      'Optional. Empty: the broker assigns one. A known id within the de-duplication window is not stored twice.',
    ),
    field(
      'Headers (JSON object)',
      inputs.headers,
      'Strings, numbers or booleans, which selectors compare: {"region": "eu", "priority": 3}',
    ),
    field('Body (JSON)', inputs.content, 'Any JSON value; stored and delivered byte for byte.'),
    h('div', { class: 'actions' }, submit),
  );
  main.replaceChildren(
    h('h1', {}, 'Publish a message'),
    h(
      'p',
      {},
      'Stored like any producer’s message, durable once acknowledged, and delivered to every consumer of the topic. ',
      'The broker checks the token’s publish scope as for any client.',
    ),
    h('h2', { id: 'publish-heading', class: 'visually-hidden' }, 'Message'),
    form,
    h(
      'datalist',
      { id: listId },
      topics.filter((topic) => !topic.reserved).map((topic) => h('option', { value: topic.name })),
    ),
    status.element,
  );
}

/** The request body from the form, or undefined (and the reason said) when a field is not valid JSON. */
function messageOf(inputs, status) {
  const parse = (input, label) => {
    try {
      return { value: JSON.parse(input.value) };
    } catch (error) {
      status.say(`${label} is not valid JSON: ${error.message}`, true);
      input.focus();
      return undefined;
    }
  };
  const headers = inputs.headers.value.trim() === '' ? { value: {} } : parse(inputs.headers, 'Headers');
  if (headers === undefined) return undefined;
  if (typeof headers.value !== 'object' || headers.value === null || Array.isArray(headers.value)) {
    status.say('Headers must be a JSON object: {"name": "value"}.', true);
    inputs.headers.focus();
    return undefined;
  }
  const content = parse(inputs.content, 'Body');
  if (content === undefined) return undefined;
  const message = { topic: inputs.topic.value.trim(), content: content.value };
  if (Object.keys(headers.value).length > 0) message.headers = headers.value;
  if (inputs.id.value.trim() !== '') message.id = inputs.id.value.trim();
  return message;
}
