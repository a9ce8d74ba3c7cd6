import {
  applicationControllers,
  buildAsyncApiDocument,
  collectAsyncApiOperations,
  MMMQ_DESCRIBE_ONLY,
  PayloadSchemas,
} from '@mmmq/core/internal';
import type { AsyncApiContainer, AsyncApiDocument, AsyncApiInfo, AsyncApiOperation } from '@mmmq/core/internal';
import type { DynamicModule, INestApplicationContext, Type } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { UsageError } from '../cli.errors';

/** What `mmmq asyncapi` describes: the application module's file, the class it exports, the document's `info`. */
export interface DescribedApplication {
  modulePath: string;
  exportName: string;
  info: AsyncApiInfo;
  /** Describe the controllers' `@EventPattern`/`@MessagePattern` handlers too, as an MmmqServer would receive them. */
  patterns: boolean;
}

/** The package `--patterns` loads from the application. */
export const MICROSERVICES_PACKAGE = '@mmmq/microservices';

type NestCore = {
  NestFactory: { createApplicationContext(module: unknown, options?: object): Promise<INestApplicationContext> };
  ModulesContainer: Type<AsyncApiContainer>;
};

/**
 * Creates the application's Nest context (every module's providers, `onModuleInit` included, so the listeners are
 * found) with `MMMQ_DESCRIBE_ONLY` provided: the consumer subscribes nothing and contacts no broker (a producer
 * connects only when it sends). Nest and the optional JSON Schema converter are loaded from the application's own
 * dependencies, so the classes its modules were declared with are the ones the context is built with.
 * @throws UsageError when the file or its export is not there
 */
export async function describeApplication({ modulePath, exportName, info, patterns }: DescribedApplication): Promise<AsyncApiDocument> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new UsageError(`--module ${modulePath}: no such file`);
  const fromApp = createRequire(file);
  const exported = (fromApp(file) as Record<string, unknown>)[exportName];
  if (typeof exported !== 'function') {
    throw new UsageError(`${modulePath} exports no ${exportName} module class; name it with --export`);
  }
  const nest = loadFromApp<NestCore>(fromApp, '@nestjs/core');
  const describePatterns = patterns ? patternDescriber(fromApp, modulePath) : undefined;
  const context = await nest.NestFactory.createApplicationContext(describeOnly(exported as Type), { logger: false, abortOnError: false });
  try {
    const container = context.get(nest.ModulesContainer);
    const operations = [...collectAsyncApiOperations(container), ...(describePatterns?.(applicationControllers(container)) ?? [])];
    return buildAsyncApiDocument(operations, info, new PayloadSchemas((id) => loadFromApp(fromApp, id)));
  } finally {
    await context.close();
  }
}

/**
 * `@mmmq/microservices`' `describePatternHandlers`, from the application's dependencies: an MmmqServer is created in
 * the application's `main.ts`, which the CLI does not run, so the handlers are read from the controllers.
 * @throws UsageError when the application cannot load the package
 */
function patternDescriber(fromApp: NodeJS.Require, modulePath: string): (controllers: object[]) => AsyncApiOperation[] {
  try {
    const microservices = fromApp(MICROSERVICES_PACKAGE) as { describePatternHandlers(controllers: object[]): AsyncApiOperation[] };
    return (controllers) => microservices.describePatternHandlers(controllers);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new UsageError(`--patterns describes MmmqServer handlers, but ${MICROSERVICES_PACKAGE} cannot be loaded from ${modulePath}`);
  }
}

/** The application module beside a global module providing `MMMQ_DESCRIBE_ONLY`. */
function describeOnly(app: Type): DynamicModule {
  class MmmqDescribeOnlyModule {}
  const flag: DynamicModule = {
    module: MmmqDescribeOnlyModule,
    global: true,
    providers: [{ provide: MMMQ_DESCRIBE_ONLY, useValue: true }],
    exports: [MMMQ_DESCRIBE_ONLY],
  };
  class MmmqDescribedApplication {}
  return { module: MmmqDescribedApplication, imports: [app, flag] };
}

/** The application's copy of a package, else the CLI's own (a missing optional package stays missing). */
function loadFromApp<T>(fromApp: NodeJS.Require, id: string): T {
  try {
    return fromApp(id) as T;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the CLI's own copy, as a fallback
    return require(id) as T;
  }
}
