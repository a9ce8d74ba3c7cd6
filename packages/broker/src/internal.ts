/**
 * Building blocks for MMMQ's own tools (the CLI, the standalone broker, the fault suite), outside Nest's dependency
 * injection. Not a public API: it may change in any release. Applications use `MmmqBrokerModule` and what the main
 * entry exports.
 */
export { resolveTopicsOptions } from './topics/topic-policy.resolver';
export { MAX_BODY_BYTES_LIMIT } from './mmmq-broker-options.resolver';
export {
  defaultMaxOpenFiles,
  descriptorPool,
  descriptorReserve,
  readNofileLimit,
  type DescriptorPoolView,
} from './storage/descriptor-pool';
export { resolveAuthTokens } from './security/auth-options.resolver';
export { isLoopbackAddress, isLoopbackHost, isUnspecifiedAddress } from './security/loopback-address';
export { parseAllowedNetwork } from './dispatch/push-target-policy';
export { decodeEnvelope, type DecodedEnvelope } from './format/message-envelope';
export { resolveHealthOptions } from './health/health.options';
export { resolveMetricsOptions } from './metrics/metrics.options';
