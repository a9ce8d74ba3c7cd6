import { Catch, ExceptionFilter, Module } from '@nestjs/common';
import { ExternalContextCreator, NestFactory } from '@nestjs/core';
import {
  containerOf,
  ExecutionContextHost,
  ExternalExceptionFilterContext,
  METHOD_METADATA,
  MODULE_PATH,
  PATH_METADATA,
  ROUTE_ARGS_METADATA,
} from '../src/support/nest-internals';

/** The Nest version these internals were last checked against; a new major needs them checked again. */
const CHECKED_AGAINST = '11.2.10';

@Catch()
class CatchAll implements ExceptionFilter {
  catch(): string {
    return 'caught';
  }
}

@Module({})
class EmptyModule {}

describe(`the Nest internals the consumer relies on (checked against @nestjs/core ${CHECKED_AGAINST})`, () => {
  it('runs on the Nest major it was checked against', () => {
    const major = (version: string) => version.split('.')[0];
    expect(major((jest.requireActual('@nestjs/core/package.json') as { version: string }).version)).toBe(major(CHECKED_AGAINST));
    expect(major((jest.requireActual('@nestjs/common/package.json') as { version: string }).version)).toBe(major(CHECKED_AGAINST));
  });

  it("reads the metadata keys of Nest's route and parameter decorators", () => {
    expect({ ROUTE_ARGS_METADATA, METHOD_METADATA, PATH_METADATA, MODULE_PATH }).toEqual({
      ROUTE_ARGS_METADATA: '__routeArguments__',
      METHOD_METADATA: 'method',
      PATH_METADATA: 'path',
      MODULE_PATH: '__module_path__',
    });
  });

  it("finds the application's container in ExternalContextCreator and applies exception filters through it", async () => {
    const app = await NestFactory.createApplicationContext(EmptyModule, { logger: false });
    try {
      const container = containerOf(app.get(ExternalContextCreator));
      expect(container?.applicationConfig).toBeDefined();
      container!.applicationConfig!.useGlobalFilters(new CatchAll());

      const filters = new ExternalExceptionFilterContext(container!, container!.applicationConfig!).create(
        new CatchAll(),
        CatchAll.prototype.catch as never,
        undefined as never,
      );
      const host = new ExecutionContextHost([1, 2], CatchAll, CatchAll.prototype.catch);
      host.setType('mmmq');

      expect(host.getType()).toBe('mmmq');
      expect(filters.invokeCustomFilters(new Error('boom'), host)).toBe('caught');
    } finally {
      await app.close();
    }
  });
});
