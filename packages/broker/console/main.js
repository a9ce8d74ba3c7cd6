// The console's router: one page per hash (`#/topics/orders`), rendered into <main>; each page may poll and is
// stopped when another replaces it.
import { api, ApiError, forgetToken, hasToken, saveToken } from './api.js';
import { deadLettersPage } from './dead-letters.js';
import { dispatchersPage } from './dispatchers.js';
import { h, field, statusLine } from './dom.js';
import { membersPage } from './members.js';
import { overviewPage } from './overview.js';
import { publishPage } from './publish.js';
import { topicPage, topicsPage } from './topics.js';

const PAGES = {
  overview: overviewPage,
  topics: (main, name) => (name === undefined ? topicsPage(main) : topicPage(main, name)),
  dispatchers: dispatchersPage,
  members: membersPage,
  publish: publishPage,
  'dead-letters': deadLettersPage,
};

const main = document.getElementById('main');
const forgetButton = document.getElementById('forget-token');
let stopCurrent = () => {};
/** False until the first page is shown: only later page changes move the focus to the new heading. */
let started = false;

/** `#/name/argument` → the page's name and its (decoded) argument; anything else is the overview. */
function parseHash(hash) {
  const [name, ...rest] = hash.replace(/^#\/?/, '').split('/');
  return PAGES[name] ? { name, argument: rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined } : { name: 'overview' };
}

async function show() {
  // The skip link's `#main` only moves the focus; it is not a page.
  if (location.hash === '#main') return;
  stopCurrent();
  stopCurrent = () => {};
  const { name, argument } = parseHash(location.hash);
  for (const link of document.querySelectorAll('nav a')) {
    if (link.getAttribute('href') === `#/${name}`) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  forgetButton.hidden = !hasToken();
  main.replaceChildren();
  try {
    stopCurrent = (await PAGES[name](main, argument)) ?? (() => {});
    const heading = main.querySelector('h1');
    document.title = heading ? `${heading.textContent} · MMMQ console` : 'MMMQ console';
    if (heading && started) {
      heading.setAttribute('tabindex', '-1');
      heading.focus();
    }
  } catch (error) {
    showFailure(error);
  }
  started = true;
}

/** A page that could not load: the token form when the broker wants a (better) token, the error otherwise. */
export function showFailure(error) {
  stopCurrent();
  stopCurrent = () => {};
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
    showTokenForm(error.message);
    return;
  }
  main.replaceChildren(h('h1', {}, 'Something went wrong'), h('p', { class: 'message error', role: 'alert' }, String(error.message)));
}

function showTokenForm(reason) {
  const input = h('input', { type: 'password', name: 'token', autocomplete: 'off', required: true, spellcheck: 'false' });
  const status = statusLine();
  status.say(hasToken() ? `The broker refused the token: ${reason}` : reason, hasToken());
  const form = h(
    'form',
    {
      'aria-labelledby': 'token-heading',
      onsubmit: async (event) => {
        event.preventDefault();
        saveToken(input.value.trim());
        try {
          await api('GET', '/mmmq/topics');
          await show();
        } catch (error) {
          forgetToken();
          status.say(`The broker refused the token: ${error.message}`, true);
        }
      },
    },
    field('Admin token', input, 'A token with the admin role (auth.tokens). It is kept in this tab only (sessionStorage).'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Sign in')),
  );
  main.replaceChildren(
    h('h1', { id: 'token-heading' }, 'Admin token needed'),
    h('p', {}, 'This broker requires authentication. The console calls its admin API with your token.'),
    form,
    status.element,
  );
  forgetButton.hidden = !hasToken();
  input.focus();
}

forgetButton.addEventListener('click', () => {
  forgetToken();
  void show();
});
window.addEventListener('hashchange', () => void show());
window.addEventListener('unhandledrejection', (event) => showFailure(event.reason));
void show();
