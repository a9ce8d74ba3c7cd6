import { describeValue, TopicPattern } from '@mmmq/core';
import { types } from 'node:util';
import { InvalidListenerError } from '../errors/invalid-listener.error';
import { getClassListenerMetadata, getListenerMetadata } from './listener.metadata';
import type { MmmqListenerOptions } from './mmmq-listener.options';

/** A class-style listener (`MMMQListener<T>`) as its instance declares it. */
export interface ClassListener {
  handle: Function;
  /** The class decorator's options (none without it), with the pattern `listens()` returns. */
  options: MmmqListenerOptions;
  /** The instance's `contentType` property, unchecked. */
  contentType: unknown;
}

/**
 * Whether `target` (an instance, or the prototype of a class) declares a class-style listener: the `@MMMQListener`
 * class decorator, or a `listens` member next to a `handle()` method. `handle()` alone says nothing, since many
 * providers have one (CQRS handlers, jobs). Only property descriptors are read: no getter runs, nothing is called.
 */
export function declaresClassListener(target: object): boolean {
  if (classDecorations(target).length > 0) return true;
  return memberOf(target, 'listens') !== undefined && typeof memberOf(target, 'handle')?.value === 'function';
}

/**
 * The class-style listener `instance` declares, or undefined. A proxy declares none: an auto-mock or a lazy client
 * may answer every property with a function, and `listens()` must only run on the provider's own code.
 * @throws InvalidListenerError naming the class and what to add or change
 */
export function readClassListener(instance: object, className: string): ClassListener | undefined {
  if (types.isProxy(instance) || !declaresClassListener(instance)) return undefined;
  const decorations = classDecorations(instance);
  if (decorations.length > 1) {
    throw new InvalidListenerError(`${className} has ${decorations.length} @MMMQListener decorators; a class can be one listener only`);
  }
  const handle: unknown = memberOf(instance, 'handle')?.value;
  if (typeof handle !== 'function') {
    throw new InvalidListenerError(
      `${className} is decorated with @MMMQListener but has no handle() method; add handle(content, context: ` +
        `MessageContext), which receives each message, or move the decorator to the method that should receive them`,
    );
  }
  if (getListenerMetadata(handle).length > 0) {
    throw new InvalidListenerError(
      `${className}.handle is decorated with @MMMQListener in a class that is a listener itself (by its class ` +
        `decorator or listens()); use one style: remove the decorator from handle(), or the class's decorator and listens()`,
    );
  }
  const decorated: MmmqListenerOptions = decorations[0] ?? {};
  const listens = memberOf(instance, 'listens');
  const pattern = listens === undefined ? decorated.pattern : listenedPattern(instance, listens, decorated.pattern, className);
  return { handle, options: { ...decorated, pattern }, contentType: (instance as { contentType?: unknown }).contentType };
}

/** Checked here rather than with the other options so that the error names `listens()`, not `handle()`. */
function listenedPattern(instance: object, listens: PropertyDescriptor, decorated: string | undefined, className: string): string {
  if (typeof listens.value !== 'function') {
    const got = listens.get === undefined ? describeValue(listens.value) : 'a getter';
    throw new InvalidListenerError(
      `${className}.listens must be a method returning the topic pattern, got ${got}; declare ` +
        `listens() { return 'order.*'; } (a string or a TopicPattern), or remove it and give the pattern to @MMMQListener('order.*')`,
    );
  }
  let returned: unknown;
  try {
    returned = (listens.value as () => unknown).call(instance);
  } catch (error) {
    throw new InvalidListenerError(`${className}.listens() threw: ${(error as Error)?.message ?? String(error)}`, { cause: error });
  }
  let pattern: string;
  try {
    pattern = (returned instanceof TopicPattern ? returned : TopicPattern.of(returned)).value;
  } catch (error) {
    throw new InvalidListenerError(
      `${className}.listens() must return a topic pattern such as 'order.*' (a string or a TopicPattern): ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (decorated !== undefined && pattern !== decorated) {
    throw new InvalidListenerError(
      `${className}: @MMMQListener says ${JSON.stringify(decorated)} but listens() returns ${JSON.stringify(pattern)}; ` +
        `they must agree: remove listens() (the decorator is enough) or make both name the same pattern`,
    );
  }
  return pattern;
}

/** The decorator is read from the class; inherited, so a subclass of a listener class is one too. */
function classDecorations(target: object): readonly MmmqListenerOptions[] {
  const type: unknown = memberOf(target, 'constructor')?.value;
  return typeof type === 'function' ? getClassListenerMetadata(type) : [];
}

/** The descriptor of `name` on `target` or the nearest prototype that has it, as property access would find it. */
function memberOf(target: object, name: string): PropertyDescriptor | undefined {
  for (let holder: object | null = target; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(holder, name);
    if (descriptor !== undefined) return descriptor;
  }
  return undefined;
}
