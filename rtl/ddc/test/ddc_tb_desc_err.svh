// Reference model of the descriptor checks (ddc_tx_desc_check), written from
// docs/CONTRACT.md's error table: the first failing check names the code.
// (Argument names are m_*: the including testbenches have signals of the plain names.)
function automatic logic [7:0] tb_desc_err(logic [31:0] m_len, logic [63:0] m_w1,
                                           logic [15:0] m_dest, logic [7:0] m_flags,
                                           logic m_inl, logic m_pushed, logic m_bad,
                                           logic [15:0] m_lo, logic [15:0] m_hi);
  bit bc = m_flags[fasthsl_pkg::DESC_FLAG_BCAST_BIT];
  int unsigned inl_max = m_pushed ? fasthsl_pkg::INLINE_MAX : fasthsl_pkg::INLINE_RING_MAX;
  if (m_bad) return 8'(fasthsl_pkg::DESC_ERR_RETRY_EXHAUSTED);
  if (m_len == 0) return 8'(fasthsl_pkg::DESC_ERR_ZERO_LEN);
  if (m_len > fasthsl_pkg::MSG_LEN_MAX) return 8'(fasthsl_pkg::DESC_ERR_LEN_TOO_BIG);
  if (m_w1[63:51] != '0 || 49'(m_w1[47:0]) + 49'(m_len) > 49'(64'h1_0000_0000_0000))
    return 8'(fasthsl_pkg::DESC_ERR_ADDR_RANGE);
  if (bc && (m_dest[7:0] > m_dest[15:8] || 16'(m_dest[7:0]) < m_lo || 16'(m_dest[15:8]) > m_hi))
    return 8'(fasthsl_pkg::DESC_ERR_BCAST_RANGE);
  if (!bc && (m_dest < m_lo || m_dest > m_hi)) return 8'(fasthsl_pkg::DESC_ERR_BAD_DEST);
  if (m_inl && m_len > inl_max) return 8'(fasthsl_pkg::DESC_ERR_INLINE_LEN);
  return 8'(fasthsl_pkg::DESC_ERR_OK);
endfunction
