export {
  InMemoryBroker,
  IN_MEMORY_MAX_NACK_RETRIES,
  NOT_TAKEN,
  type InMemoryDeadLetter,
  type InMemoryHandler,
  type InMemoryMessage,
  type InMemoryPublishRequest,
} from './in-memory-broker';
export { InMemoryTransport } from './in-memory-transport';
export { MmmqTestingModule, type MmmqTestingOptions } from './mmmq-testing.module';
