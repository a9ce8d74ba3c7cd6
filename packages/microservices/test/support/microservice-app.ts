import { INestMicroservice, Module, ModuleMetadata, Type, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { RpcException } from '@nestjs/microservices';
import { MmmqServer, MmmqServerOptions } from '../../src';

/**
 * The ValidationPipe of Nest's microservices docs: a microservice throws RpcException, not HttpException, and the
 * transport sees class-validator's errors.
 */
export const rpcValidationPipe = () => new ValidationPipe({ transform: true, exceptionFactory: (errors) => new RpcException(errors) });

/** A standalone Nest microservice on MmmqServer (`NestFactory.createMicroservice`), listening. */
export async function startMicroservice(
  controllers: Type[],
  options: MmmqServerOptions,
  configure: (app: INestMicroservice) => void = (app) => app.useGlobalPipes(rpcValidationPipe()),
  metadata: ModuleMetadata = {},
): Promise<{ app: INestMicroservice; server: MmmqServer }> {
  @Module({ controllers, ...metadata })
  class MicroserviceTestModule {}
  const server = new MmmqServer(options);
  const app = await NestFactory.createMicroservice(MicroserviceTestModule, { strategy: server, logger: false, abortOnError: false });
  try {
    configure(app);
    await app.listen();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return { app, server };
}
