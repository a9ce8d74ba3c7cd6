// @mmmq/rabbitmq: the RabbitMQ transport (docs/scaling.md).
export {};
