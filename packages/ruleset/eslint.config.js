import root from "../../eslint.config.js";

// The rule-set document sits beside the domain: the REST API, the CLI, the console and the
// CloudKitty bridge use it, and it uses none of them. It reads the database (export) and formats
// decimals as Ratecard stores them, nothing more.
export default [
  ...root,
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "@trpc/*",
                "trpc-to-openapi",
                "zod-openapi",
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
    },
  },
];
