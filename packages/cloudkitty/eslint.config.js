import root from "../../eslint.config.js";

// The CloudKitty client sits beside the domain: import, plan/apply and drift call it, and it
// knows nothing of Ratecard's API, server, console or database.
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
                "@prisma/*",
                "@ratecard/api",
                "@ratecard/server",
                "@ratecard/web",
                "@ratecard/db",
              ],
              message: "The CloudKitty client depends on no part of Ratecard.",
            },
          ],
        },
      ],
    },
  },
];
