/** The API reference page: Swagger UI (served from the swagger-ui-dist package) over /v1/openapi.json. */
export const DOCS_ASSETS_PREFIX = "/docs/assets/";

export const docsPageHtml = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Ratecard API reference</title>
  <link rel="stylesheet" href="${DOCS_ASSETS_PREFIX}swagger-ui.css">
</head>
<body>
  <div id="api-reference"></div>
  <script src="${DOCS_ASSETS_PREFIX}swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: "/v1/openapi.json", dom_id: "#api-reference", deepLinking: true });
  </script>
</body>
</html>
`;
