import { describeValue } from '../errors/describe-value';
import { optionChecks, type OptionErrorClass } from '../option-checks';

/** Path of the AsyncAPI document when `asyncapi.path` is not given: `GET /asyncapi.json`. */
export const DEFAULT_ASYNCAPI_PATH = 'asyncapi.json';
/** The document's `info.title` when `asyncapi.title` is not given (the consumer uses its `app` name first). */
export const DEFAULT_ASYNCAPI_TITLE = 'MMMQ application';
/** The document's `info.version` when `asyncapi.version` is not given. */
export const DEFAULT_ASYNCAPI_VERSION = '1.0.0';

/**
 * `GET {path}`: the application's AsyncAPI 3.0 document as JSON (docs/asyncapi.md), the `asyncapi` option of
 * `MmmqConsumerModule` and `MmmqProducerModule`. Given next to their options (`forRoot({ …, asyncapi })`,
 * `forRootAsync({ useFactory, asyncapi })`): the route exists or not when the module is built.
 */
export interface AsyncApiRouteOptions {
  /** False leaves the route out. Default true once `asyncapi` is given as an object. */
  enabled?: boolean;
  /** Path of the document, without slashes at the ends. Default {@link DEFAULT_ASYNCAPI_PATH}. */
  path?: string;
  /** `info.title`. Default: the consumer's `app` option, else {@link DEFAULT_ASYNCAPI_TITLE}. */
  title?: string;
  /** `info.version`, the version of the application's messaging API. Default {@link DEFAULT_ASYNCAPI_VERSION}. */
  version?: string;
  /** `info.description`. Default none. */
  description?: string;
}

/** The route's settings after validation; `title` undefined: the module's default, read when the document is built. */
export type ResolvedAsyncApiRoute =
  { enabled: false } | { enabled: true; path: string; title: string | undefined; version: string; description: string | undefined };

const ROUTE_FIELDS: ReadonlySet<string> = new Set(['enabled', 'path', 'title', 'version', 'description']);

/** Path segments of letters, digits, `-`, `_` and `.`, separated by single slashes (the broker's rule). */
const ROUTE_PATH = /^[\w.-]+(\/[\w.-]+)*$/;

/**
 * Off unless given: `true` (the defaults), or an object that is on unless its `enabled` is false; unknown keys refused.
 * @throws InvalidOptions naming the `asyncapi` option that is wrong
 */
export function resolveAsyncApiRoute(asyncapi: unknown, InvalidOptions: OptionErrorClass): ResolvedAsyncApiRoute {
  if (asyncapi === undefined || asyncapi === false) return { enabled: false };
  const checks = optionChecks(InvalidOptions);
  const options = asyncapi === true ? {} : checks.plainObject('asyncapi', asyncapi);
  checks.refuseUnknownFields('asyncapi', options, ROUTE_FIELDS);
  const { enabled = true, path = DEFAULT_ASYNCAPI_PATH, title, version = DEFAULT_ASYNCAPI_VERSION, description } = options;
  if (typeof enabled !== 'boolean') throw new InvalidOptions(`asyncapi.enabled must be true or false, got ${describeValue(enabled)}`);
  if (!enabled) return { enabled: false };
  if (typeof path !== 'string' || !ROUTE_PATH.test(path)) {
    throw new InvalidOptions(
      `asyncapi.path must be path segments (letters, digits, - _ .) separated by /, without leading or trailing slash, got ${describeValue(path)}`,
    );
  }
  return {
    enabled: true,
    path,
    title: title === undefined ? undefined : checks.nonBlankString('asyncapi.title', title),
    version: checks.nonBlankString('asyncapi.version', version),
    description: description === undefined ? undefined : checks.nonBlankString('asyncapi.description', description),
  };
}
