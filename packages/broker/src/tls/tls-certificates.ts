import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { createSecureContext } from 'node:tls';
import type { Server as TlsServer } from 'node:tls';
import type { ResolvedTlsOptions } from '../config/broker-options';
import { TlsCertificateError } from './tls-certificate.error';

/** A private key and its certificate chain, PEM, as `tls.createServer()` and `https.createServer()` take them. */
export interface TlsCredentials {
  key: Buffer;
  cert: Buffer;
}

/** What errors call the two files: the module's option names, or the standalone broker's variables. */
const OPTION_NAMES: Record<keyof ResolvedTlsOptions, string> = { keyFile: 'tls.keyFile', certFile: 'tls.certFile' };

/**
 * Reads the key and certificate files and checks that they load and belong together.
 *
 * @throws TlsCertificateError naming the option and the file that cannot be used
 */
export function readTlsCredentials(options: ResolvedTlsOptions, names = OPTION_NAMES): TlsCredentials {
  const credentials = { key: readPem(names.keyFile, options.keyFile), cert: readPem(names.certFile, options.certFile) };
  try {
    createSecureContext(credentials);
  } catch (error) {
    throw new TlsCertificateError(
      `${names.keyFile} (${options.keyFile}) and ${names.certFile} (${options.certFile}) are not a usable key and ` +
        `certificate: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return credentials;
}

function readPem(option: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new TlsCertificateError(`${option} (${file}) cannot be read: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The broker's TLS key and certificate: read from files at start-up, and again on {@link reload} (the standalone
 * broker calls it on SIGHUP), which hands the new pair to every server attached, for the connections that follow.
 * Connections already open keep the certificate they were opened with.
 */
export class TlsCertificates {
  private readonly logger = new Logger(TlsCertificates.name);
  private readonly servers = new Set<TlsServer>();
  #credentials: TlsCredentials;

  /** @throws TlsCertificateError when the files cannot be read or do not hold a matching key and certificate */
  constructor(private readonly options: ResolvedTlsOptions) {
    this.#credentials = readTlsCredentials(options);
  }

  /** The pair in use: what a server created now should start with. */
  get credentials(): TlsCredentials {
    return this.#credentials;
  }

  /**
   * Keeps `server` on the current pair across reloads until it closes, and closes every connection whose handshake
   * fails or runs out of `handshakeTimeout`: Node reports those (`tlsClientError`) but leaves the socket open.
   */
  attach(server: TlsServer): void {
    this.servers.add(server);
    server.on('tlsClientError', (_error, socket) => socket.destroy());
    server.once('close', () => this.servers.delete(server));
  }

  /**
   * Reads the files again. A pair that cannot be used is logged and ignored: the servers keep the previous one,
   * so a half-copied certificate never takes the broker off the air.
   *
   * @returns whether the new pair is in use
   */
  reload(): boolean {
    let credentials: TlsCredentials;
    try {
      credentials = readTlsCredentials(this.options);
    } catch (error) {
      this.logger.error(`TLS certificate not reloaded, the previous one stays in use: ${(error as Error).message}`);
      return false;
    }
    this.#credentials = credentials;
    for (const server of this.servers) server.setSecureContext(credentials);
    this.logger.log(`TLS certificate reloaded from ${this.options.certFile}`);
    return true;
  }
}
