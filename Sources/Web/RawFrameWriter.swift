import NIOCore

/// Writes WebSocket frames already encoded as bytes, from just below the pipeline's `WebSocketFrameEncoder` (and
/// above TLS, when there is TLS): `WebSocketSink` writes a batch of text frames this way, one buffer for all of
/// them. Every other write passes through untouched. Used on its channel's event loop only.
final class RawFrameWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    /// Writes `bytes` (whole frames) and flushes the channel.
    func writeAndFlush(_ bytes: ByteBuffer, promise: EventLoopPromise<Void>?) {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: promise)
    }

    /// A final, unmasked text frame holding `payload` (RFC 6455 §5.2: a server's frames are not masked), as
    /// `WebSocketFrameEncoder` writes it.
    static func appendTextFrame(_ payload: ByteBuffer, to bytes: inout ByteBuffer) {
        bytes.writeInteger(UInt8(0x81))  // FIN, opcode 1 (text)
        let length = payload.readableBytes
        if length < 126 {
            bytes.writeInteger(UInt8(length))
        } else if length <= Int(UInt16.max) {
            bytes.writeInteger(UInt8(126))
            bytes.writeInteger(UInt16(length))
        } else {
            bytes.writeInteger(UInt8(127))
            bytes.writeInteger(UInt64(length))
        }
        bytes.writeImmutableBuffer(payload)
    }
}
