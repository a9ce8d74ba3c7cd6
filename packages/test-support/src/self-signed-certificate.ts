import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SelfSignedCertificate {
  keyFile: string;
  certFile: string;
  /** PEM, to trust as a CA on the client side. */
  cert: string;
  /** SHA-256 fingerprint, as `TLSSocket.getPeerCertificate().fingerprint256` reports it. */
  fingerprint: string;
}

/**
 * A fresh P-256 key and a one-day certificate for `localhost` and `127.0.0.1`, made with the openssl command line
 * (Node can check certificates but not issue them). Files are `{name}.key` and `{name}.crt` in `dir`.
 */
export function createSelfSignedCertificate(dir: string, name = 'broker'): SelfSignedCertificate {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(certFile, 'utf8');
  return { keyFile, certFile, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
}
