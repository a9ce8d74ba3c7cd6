export * from './transport';
export * from './transport-message';
export * from './transport-rejected.error';
export * from './transport-closed.error';
export * from './transactional-subscriber';
export * from './leasing-subscriber';
export * from './transport-option';
