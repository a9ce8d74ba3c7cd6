export { REPLY_HEADERS, REPLIES_PATH } from './reply-headers';
export {
  type Reply,
  type ReplyErrorBody,
  REPLY_ERROR_DATA,
  REPLY_ERROR_TEXT_MAX_LENGTH,
  isReplyAddress,
  parseReply,
  replyAddressOf,
  replyErrorOf,
} from './reply';
export { ReplyInboxes } from './reply-inboxes';
