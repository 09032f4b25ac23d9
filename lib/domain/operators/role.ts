/** What an operator of the admin console may do: everything (APP_ADMIN), or look (SYS_MON). */
export type OperatorRole = "admin" | "monitor";
