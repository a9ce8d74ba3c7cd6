import { Injectable } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '../support/nest-internals';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { ListenerContextCreator } from '../handling/listener-context-creator';
import { declaresClassListener, readClassListener } from '../listener/class-listener';
import type { DiscoveredListener } from '../listener/discovered-listener';
import { inspectHandler } from '../listener/handler-signature';
import { getListenerMetadata } from '../listener/listener.metadata';

/**
 * Finds every listener among the application's providers and controllers: methods decorated with `@MMMQListener`,
 * and class-style listeners (`MMMQListener<T>`): a `handle()` method on an instance whose class carries the decorator
 * or declares `listens()`. A provider with only a `handle()` method is not a listener.
 */
@Injectable()
export class ListenerExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly contexts: ListenerContextCreator,
  ) {}

  /** @throws InvalidListenerError naming the class and method of the first misdeclared listener */
  explore(): DiscoveredListener[] {
    const seen = new Set<object>();
    const found: DiscoveredListener[] = [];
    for (const wrapper of [...this.discovery.getProviders(), ...this.discovery.getControllers()]) {
      if (!wrapper.isDependencyTreeStatic() || wrapper.isTransient) {
        this.refuseIfListener(wrapper);
        continue;
      }
      const instance: unknown = wrapper.instance;
      // An alias (`useExisting`) is a second wrapper around the same instance; it must not listen twice.
      if (typeof instance !== 'object' || instance === null || seen.has(instance)) continue;
      seen.add(instance);
      found.push(...this.decoratedMethods(instance, wrapper), ...this.classListener(instance, wrapper));
    }
    return found;
  }

  private decoratedMethods(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    // NOTE: for `useFactory` and `useValue` providers `wrapper.metatype` is the factory or null, so the class
    // (and its decorator metadata) is reached through the instance.
    const prototype = Object.getPrototypeOf(instance) as object;
    const className = classNameOf(instance, wrapper);
    const found: DiscoveredListener[] = [];
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[methodName] as Function;
      const decorations = getListenerMetadata(method);
      if (decorations.length === 0) continue;
      const where = `${className}.${methodName}`;
      if (decorations.length > 1) {
        throw new InvalidListenerError(
          `${where} has ${decorations.length} @MMMQListener decorators; a method can be one listener only, ` +
            `so give each pattern its own method`,
        );
      }
      found.push({
        where,
        defaultName: where,
        options: decorations[0],
        contentType: inspectHandler(prototype, methodName, method, where),
        handle: this.contexts.create(instance, method, methodName),
      });
    }
    return found;
  }

  private classListener(instance: object, wrapper: InstanceWrapper): DiscoveredListener[] {
    const className = classNameOf(instance, wrapper);
    const listener = readClassListener(instance, className);
    if (listener === undefined) return [];
    const prototype = Object.getPrototypeOf(instance) as object;
    const where = `${className}.handle`;
    return [
      {
        where,
        defaultName: className,
        options: listener.options,
        contentType: inspectHandler(prototype, 'handle', listener.handle, where, listener.contentType),
        handle: this.contexts.create(instance, listener.handle, 'handle'),
      },
    ];
  }

  /** Request-scoped and transient providers have no single instance that could receive pushed messages. */
  private refuseIfListener(wrapper: InstanceWrapper): void {
    const type = wrapper.inject ? undefined : (wrapper.metatype as Function | undefined);
    const prototype: unknown = type?.prototype;
    if (type === undefined || typeof prototype !== 'object' || prototype === null) return;
    const decorated = this.scanner
      .getAllMethodNames(prototype)
      .some((name) => getListenerMetadata((prototype as Record<string, Function>)[name]).length > 0);
    if (decorated || declaresClassListener(prototype)) {
      throw new InvalidListenerError(
        `${String(wrapper.name)} has listeners but is request-scoped or transient; listeners must be singletons ` +
          `(the default scope), because pushed messages arrive outside any request`,
      );
    }
  }
}

/** A plain `useValue` object has no class of its own; its provider token names it better than `Object`. */
function classNameOf(instance: object, wrapper: InstanceWrapper): string {
  const constructorName = (instance.constructor as Function | undefined)?.name;
  return constructorName && instance.constructor !== Object ? constructorName : String(wrapper.name);
}
