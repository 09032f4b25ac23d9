/**
 * A browser without a page engine, for hosted-page tests over plain HTTP: it keeps its
 * cookies, sends them with every request, and reads the hidden fields of the last page.
 */
export function httpBrowser(language = "en") {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair.indexOf("=");
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  const fields = { interaction: "", csrf: "" };
  const read = async (response: Response) => {
    keep(response);
    const html = await response.text();
    fields.interaction = /name="interaction" value="([^"]*)"/.exec(html)?.[1] ?? fields.interaction;
    fields.csrf = /name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? fields.csrf;
    return { status: response.status, html, location: response.headers.get("location") ?? undefined };
  };
  return {
    cookies,
    fields,
    async open(url: URL) {
      const headers = { "accept-language": language, ...(cookies.size > 0 && { cookie: cookieHeader() }) };
      return read(await fetch(url, { redirect: "manual", headers }));
    },
    async post(path: URL, form: Record<string, string>) {
      const response = await fetch(path, {
        method: "POST",
        redirect: "manual",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          cookie: cookieHeader(),
          "accept-language": language,
        },
        body: new URLSearchParams(form).toString(),
      });
      return read(response);
    },
  };
}

export type HttpBrowser = ReturnType<typeof httpBrowser>;
