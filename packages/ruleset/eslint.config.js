import root from "../../eslint.config.js";

// The rule-set document sits beside the domain: the REST API, the CLI, the console and the
// CloudKitty bridge use it, and it uses none of them. It reads the database (export) and formats
// decimals as Ratecard stores them, nothing more: writes (apply, import) belong to the domain,
// with its checks and audit events.
export default [
  ...root,
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "@ratecard/db",
              importNames: [
                "appendAuditEvent",
                "insertMapping",
                "insertThreshold",
                "migrateDatabase",
                "openDatabase",
              ],
              message: "The rule set only reads, through the client it is given.",
            },
          ],
          patterns: [
            {
              group: [
                "@trpc/*",
                "trpc-to-openapi",
                "zod-openapi",
                "@prisma/*",
                "@ratecard/api",
                "@ratecard/api/*",
                "@ratecard/server",
                "@ratecard/server/*",
                "@ratecard/web",
                "@ratecard/web/*",
                "@ratecard/cloudkitty",
                "**/packages/api/**",
                "**/apps/**",
              ],
              message:
                "The rule set depends only on @ratecard/validators and @ratecard/db (read-only).",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          // prisma.<model>.<write>(...) and raw statements.
          selector:
            "CallExpression[callee.object.type='MemberExpression'][callee.property.name=/^(create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)$/], CallExpression[callee.property.name=/^\\$(executeRaw|executeRawUnsafe|queryRaw|queryRawUnsafe)$/]",
          message: "The rule set only reads the database, with findMany and explicit selects.",
        },
      ],
    },
  },
];
