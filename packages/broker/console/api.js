// Calls the broker's admin API from the page, with the admin token when the broker requires one.

/** Where the token lives: this tab only, gone when it closes; never in a cookie, so no other site can use it. */
const TOKEN_KEY = 'mmmq.console.token';

/** A refused or failed API call: the HTTP status and the broker's message. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export function hasToken() {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

export function saveToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Sends a JSON request to the broker and returns the parsed answer (null when empty). */
export async function api(method, path, body) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store',
    credentials: 'omit',
  });
  const text = await response.text();
  const data = parseJson(text);
  if (!response.ok) {
    const message = data && typeof data.message === 'string' ? data.message : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

/** The answer's JSON, or null when it is empty or not JSON (a proxy's error page). */
function parseJson(text) {
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** A path segment of the API, encoded (topic names and consumer ids may hold any character the broker allows). */
export function segment(value) {
  return encodeURIComponent(value);
}
