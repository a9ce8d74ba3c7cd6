export { type AsyncApiOperation, type AsyncApiPayload } from './asyncapi-operation';
export { ASYNCAPI_CONTRIBUTOR, asyncApiContributorOf, type AsyncApiContributor, type AsyncApiScope } from './asyncapi-contributor';
export { applicationControllers, collectAsyncApiOperations, type AsyncApiContainer } from './asyncapi-collector';
export { ASYNCAPI_VERSION, buildAsyncApiDocument, type AsyncApiDocument, type AsyncApiInfo } from './asyncapi-document.builder';
export { JSONSCHEMA_CONVERTER_PACKAGE, PayloadSchemas, SCHEMA_POINTER_PREFIX } from './payload-schemas';
export { MMMQ_DESCRIBE_ONLY } from './describe-only';
export { asyncApiRouteController, type AsyncApiRouteParts } from './asyncapi-route.controller';
export { resolveAsyncApiRoute, type ResolvedAsyncApiRoute } from './asyncapi-route.options';
export { asyncApiPayloadOf } from './asyncapi-payload';
