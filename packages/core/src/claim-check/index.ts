export {
  CLAIM_CHECK_HEADER,
  CLAIM_CHECK_VERSION,
  DEFAULT_CLAIM_CHECK_THRESHOLD_BYTES,
  DEFAULT_CLAIM_CHECK_TTL_MS,
  DEFAULT_CLAIM_CHECK_MAX_BYTES,
  type ClaimCheckReference,
  parseClaimCheckReference,
} from './claim-check-reference';
export { type ObjectStore, type ObjectMetadata, OBJECT_KEY_MAX_LENGTH, assertObjectKey, isObjectKey, isObjectStore } from './object-store';
export { FileSystemObjectStore } from './file-system-object-store';
export { fetchClaimCheck, sha256Hex, type ClaimCheckFailure, type ClaimCheckResolution } from './claim-check-integrity';
export { InvalidClaimCheckReferenceError, InvalidObjectKeyError, ObjectNotFoundError } from './claim-check.errors';
