import root from "../../eslint.config.js";

// The CLI is a client of Ratecard's REST API, like any other: it reads and checks rule-set files
// with @ratecard/ruleset and talks to the server over HTTP only, never to its database.
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
              group: ["@ratecard/db", "@ratecard/api", "@ratecard/server", "@prisma/*", "@trpc/*"],
              message: "The CLI talks to Ratecard over its REST API only.",
            },
          ],
        },
      ],
    },
  },
];
