/** The API reference page: Swagger UI (served from the swagger-ui-dist package) over /v1/openapi.json. */
export const DOCS_ASSETS_PREFIX = "/docs/assets/";

// Swagger UI 5 as shipped fails axe (checked with axe-core 4.13), and each failure is answered here:
// - deep links put an <a> inside each operation's toggle <button> (nested-interactive): off;
// - the one-server picker is a <select> with an empty <label> (select-name): one server, nothing
//   to pick, so the bar that holds it is hidden (the document has no security schemes either);
// - white on light method badges, light grey and light blue text (color-contrast): darker shades of
//   the same colours, and deprecated operations at full opacity (struck through as before);
// - tag headings are <h3> under the page's <h1> (heading-order): a hidden <h2> heads the operations;
// - the title and description sit outside any landmark (region): they go in a banner (inside
//   Swagger UI's <section>, a <header> needs the role spelled out); the operations are already in
//   Swagger UI's own <main>;
// - "Try it out": the request body <textarea> has no label (label), and every expanded operation's
//   responses table is an unnamed region (landmark-unique): both get names.
const ACCESSIBLE_STYLES = `
  .swagger-ui .scheme-container { display: none; }
  .swagger-ui .info .title small { background: #545b66; }
  .swagger-ui .info .title small.version-stamp { background-color: #3d6b00; }
  .swagger-ui .info a { color: #1f5fae; }
  .swagger-ui .opblock.opblock-get .opblock-summary-method { background: #1d6fc2; }
  .swagger-ui .opblock.opblock-post .opblock-summary-method { background: #0f7a4a; }
  .swagger-ui .opblock.opblock-put .opblock-summary-method { background: #a8520a; }
  .swagger-ui .opblock.opblock-delete .opblock-summary-method { background: #c0262a; }
  .swagger-ui .opblock.opblock-patch .opblock-summary-method { background: #127766; }
  .swagger-ui .opblock.opblock-deprecated { opacity: 1; }
  .swagger-ui .opblock.opblock-deprecated .opblock-summary-method { background: #5c616b; }
  .swagger-ui .opblock.opblock-deprecated .opblock-summary-path,
  .swagger-ui .opblock.opblock-deprecated .opblock-summary-path span,
  .swagger-ui .opblock.opblock-deprecated .opblock-summary-description { color: #4f535b; }
  .swagger-ui .json-schema-2020-12-expand-deep-button { color: #4f535b; }
  .swagger-ui .parameter__in { color: #4f535b; }
  .swagger-ui .btn.cancel { color: #b3161b; border-color: #b3161b; }
  .swagger-ui .btn.execute { background-color: #1f5fae; border-color: #1f5fae; }
  .swagger-ui .download-contents { background: #545b66; }
  .visually-hidden {
    position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
    overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0;
  }
`;

// Runs in the page. Swagger UI's plugin system wraps its components; what it renders without a
// component to wrap (the responses table) is named once it appears.
const ACCESSIBLE_PLUGIN = `
  const AccessibleReference = () => ({
    wrapComponents: {
      OAS31Info: (Original, { React }) => (props) =>
        React.createElement("header", { role: "banner" }, React.createElement(Original, props)),
      operations: (Original, { React }) => (props) =>
        React.createElement(
          React.Fragment,
          null,
          React.createElement("h2", { className: "visually-hidden" }, "Operations"),
          React.createElement(Original, props),
        ),
      TextArea: (Original, { React }) => (props) =>
        React.createElement(Original, { "aria-label": "Request body", ...props }),
    },
  });
  new MutationObserver(() => {
    for (const table of document.querySelectorAll("table.responses-table[role=region]:not([aria-label])")) {
      const summary = table.closest(".opblock")?.querySelector(".opblock-summary-control");
      const method = summary?.querySelector(".opblock-summary-method")?.textContent ?? "";
      const path = summary?.querySelector(".opblock-summary-path")?.textContent ?? "";
      table.setAttribute("aria-label", ("Responses of " + method + " " + path).trim());
    }
  }).observe(document.body, { childList: true, subtree: true });
`;

export const docsPageHtml = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Ratecard</title>
  <link rel="stylesheet" href="${DOCS_ASSETS_PREFIX}swagger-ui.css">
  <style>${ACCESSIBLE_STYLES}</style>
</head>
<body>
  <div id="api-reference"></div>
  <script src="${DOCS_ASSETS_PREFIX}swagger-ui-bundle.js"></script>
  <script>${ACCESSIBLE_PLUGIN}
    window.ui = SwaggerUIBundle({
      url: "/v1/openapi.json",
      dom_id: "#api-reference",
      deepLinking: false,
      plugins: [AccessibleReference],
    });
  </script>
</body>
</html>
`;
