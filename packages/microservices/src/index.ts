export { MmmqServer, type MmmqServerStatus } from './server/mmmq-server';
export { DEFAULT_PUSH_HOST, type MmmqServerOptions } from './server/mmmq-server.options';
export type { MmmqEventPatternExtras } from './server/event-listeners';
export { MMMQ_TRANSPORT } from './mmmq-transport';
export { MmmqContext } from './context/mmmq-context';
export { MmmqNonRetriableException } from './errors/mmmq-non-retriable.exception';
export { InvalidServerOptionsError } from './errors/invalid-server-options.error';
export { HandlerFailedError } from './server/handler-failure';
