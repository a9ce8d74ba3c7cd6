export { run } from './run';
export type { CliIo, CliOutput } from './cli-io';
export { ExitCode } from './exit-codes';
export { BrokerRequestError, CliError, UsageError, VerificationFailedError } from './cli.errors';
export { BrokerClient, DEFAULT_BROKER_URL } from './broker-client';
export { startStandaloneBroker } from './broker/start-standalone-broker';
export { readBrokerConfig, type BrokerConfig, DEFAULT_HOST, DEFAULT_PORT } from './broker/broker-config';
export { applyLogFormat, readLogFormat, type LogFormat } from './broker/log-format';
export { readLogLevel, type BrokerLogLevel } from './broker/log-level';
