import root from "../../eslint.config.js";

// The bridge between CloudKitty and Ratecard's rule-set document sits beside the domain: it
// converts what @ratecard/cloudkitty reads into what @ratecard/ruleset describes, and knows
// nothing of the API, the server, the console or the database (the domain does the writing).
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
                "@prisma/*",
                "@ratecard/api",
                "@ratecard/api/*",
                "@ratecard/server",
                "@ratecard/server/*",
                "@ratecard/web",
                "@ratecard/web/*",
                "@ratecard/db",
                "**/packages/api/**",
                "**/apps/**",
              ],
              message: "The bridge depends only on @ratecard/cloudkitty and @ratecard/ruleset.",
            },
          ],
        },
      ],
    },
  },
];
