import { InvalidExampleConfigError, isRabbitMqUrl, readExampleConfig } from '../src/example-config';

describe('the example configuration', () => {
  it('takes the MMMQ broker by default, and RabbitMQ from an amqp:// or amqps:// MMMQ_BROKER', () => {
    expect(readExampleConfig({}).broker).toBe('http://127.0.0.1:8080');
    for (const broker of ['amqp://guest:guest@127.0.0.1:5672', 'amqps://rabbit.internal:5671']) {
      expect(readExampleConfig({ MMMQ_BROKER: broker }).broker).toBe(broker);
      expect(isRabbitMqUrl(broker)).toBe(true);
    }
    expect(isRabbitMqUrl('http://127.0.0.1:8080')).toBe(false);
  });

  it('refuses another scheme, naming MMMQ_BROKER', () => {
    expect(() => readExampleConfig({ MMMQ_BROKER: 'ftp://127.0.0.1' })).toThrow(InvalidExampleConfigError);
    expect(() => readExampleConfig({ MMMQ_BROKER: 'ftp://127.0.0.1' })).toThrow(/MMMQ_BROKER must be an http:\/\/ or https:\/\/ URL/);
  });
});
