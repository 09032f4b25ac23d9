/**
 * The QR code encoder, evaluated on the first code drawn (a TOTP enrolment, a QR sign-in),
 * so the cold starts of its functions' other routes do not set it and its PNG writer up.
 */
export const qrCodes = async () => (await import("qrcode")).default;
