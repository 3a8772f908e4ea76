// Link-level types shared by the NIC and the router.
//
// A link carries 64-bit flits one way and credits the other way. A packet is a run of
// flits ending in one with `last` set; `err` on that last flit marks an exceptional end
// (EEP: the packet was cut short and must be dropped by its receiver).
// Credit protocol: the receiver pulses `credit` once per buffer slot it frees; after
// reset it pulses once per slot of its input buffer (one per cycle), so a sender's
// counter starts at 0 and learns the buffer depth from the wire.
package fasthsl_link_pkg;

  typedef struct packed {
    logic        valid;
    logic        last;
    logic        err;
    logic [63:0] data;
  } link_flit_t;

  localparam link_flit_t LINK_FLIT_IDLE = '{valid: 1'b0, last: 1'b0, err: 1'b0, data: '0};

endpackage
