// Renders the service's own OpenAPI document with Swagger UI, served from this process (no CDN, no
// online validator badge). "Try it out" sends requests with the X-API-Key typed under Authorize.
window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
});
