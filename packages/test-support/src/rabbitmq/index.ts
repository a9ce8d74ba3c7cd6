export * from './amqp-probe';
export * from './rabbitmq-cli';
export * from './rabbitmq-cluster';
export * from './rabbitmq-node';
export * from './rabbitmq-test-node.error';
