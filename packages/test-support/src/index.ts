export * from './broker-app';
export * from './broker-process';
export * from './free-port';
export * from './quiet-logger';
export * from './self-signed-certificate';
export * from './temp-dir';
export * from './test-consumer';
export * from './wait-for';
