import { startInMemoryTracing } from '@mmmq/test-support';
import { activeTracing } from '../../src/internal';
import { loadApi } from '../../src/tracing/opentelemetry';

describe('activeTracing', () => {
  it('is off while no tracer provider is registered, on while one is, and off again once it is gone', async () => {
    expect(activeTracing('@mmmq/test')).toBeUndefined();
    const tracing = startInMemoryTracing();
    try {
      const active = activeTracing('@mmmq/test');
      expect(active).toBeDefined();
      active!.tracer.startSpan('probe').end();
      expect(tracing.spans().map((span) => [span.name, span.instrumentationScope.name])).toEqual([['probe', '@mmmq/test']]);
    } finally {
      await tracing.close();
    }
    expect(activeTracing('@mmmq/test')).toBeUndefined();
  });
});

describe('loadApi', () => {
  const missing = (id: string) => Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });

  it('turns tracing off when @opentelemetry/api is not installed', () => {
    expect(
      loadApi((id) => {
        throw missing(id);
      }),
    ).toBeUndefined();
  });

  it('keeps the error of a broken install, where one of the package’s own imports is missing', () => {
    expect(() =>
      loadApi(() => {
        throw missing('./trace/api');
      }),
    ).toThrow("Cannot find module './trace/api'");
  });
});
