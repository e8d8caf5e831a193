package io.rivulet.transport.rdma.disni;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Stand-ins for DiSNI's stateful verb calls: they record what was built and every in-place
 * modification, as DiSNI's native-backed calls would write them off-heap.
 */
final class FakeCalls
{
    final List<SendCall> sendCalls = new ArrayList<>();
    final List<RecvCall> recvCalls = new ArrayList<>();
    final List<PollCall> pollCalls = new ArrayList<>();
    /** Work request ids of the completions the fake CQ holds, oldest first; each poll takes up to its count. */
    final ArrayDeque<Long> pendingCompletions = new ArrayDeque<>();

    SVCPostSend createSend(final List<IbvSendWR> wrs)
    {
        final SendCall call = new SendCall(wrs.get(0));
        sendCalls.add(call);
        return call;
    }

    SVCPostRecv createRecv(final List<IbvRecvWR> wrs)
    {
        final RecvCall call = new RecvCall(wrs.get(0));
        recvCalls.add(call);
        return call;
    }

    SVCPollCq createPoll(final IbvWC[] wcs, final int count)
    {
        final PollCall call = new PollCall(wcs, count);
        pollCalls.add(call);
        return call;
    }

    /** As DiSNI's poll call: fills the array it was built over with at most its count, from index 0. */
    final class PollCall extends SVCPollCq
    {
        final IbvWC[] wcs;
        final int count;
        int executions;
        int polls;
        boolean freed;

        PollCall(final IbvWC[] wcs, final int count)
        {
            this.wcs = wcs;
            this.count = count;
        }

        @Override
        public SVCPollCq execute()
        {
            if (freed)
            {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            polls = 0;
            while (polls < count && !pendingCompletions.isEmpty())
            {
                final IbvWC wc = wcs[polls++];
                wc.setWr_id(pendingCompletions.poll());
                wc.setStatus(0);
            }
            return this;
        }

        @Override
        public int getPolls()
        {
            return polls;
        }

        @Override
        public boolean isValid()
        {
            return !freed;
        }

        @Override
        public SVCPollCq free()
        {
            if (freed)
            {
                throw new IllegalStateException("freed twice");
            }
            freed = true;
            return this;
        }
    }

    static final class SendCall extends SVCPostSend
    {
        final IbvSendWR built;
        final WrMod wr;
        int executions;
        boolean freed;

        SendCall(final IbvSendWR built)
        {
            this.built = built;
            this.wr = new WrMod(built);
        }

        @Override
        public SendWRMod getWrMod(final int index)
        {
            if (index != 0)
            {
                throw new IndexOutOfBoundsException(index);
            }
            if (freed)
            {
                throw new IllegalStateException("modified after free");
            }
            return wr;
        }

        @Override
        public SVCPostSend execute()
        {
            if (freed)
            {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            return this;
        }

        @Override
        public boolean isValid()
        {
            return !freed;
        }

        @Override
        public SVCPostSend free()
        {
            if (freed)
            {
                throw new IllegalStateException("freed twice");
            }
            freed = true;
            return this;
        }
    }

    static final class WrMod implements SVCPostSend.SendWRMod
    {
        final RdmaMod rdma = new RdmaMod();
        final List<SgeMod> sges = new ArrayList<>();
        final int opcode;
        final int numSge;
        long wrId;
        int sendFlags;

        WrMod(final IbvSendWR built)
        {
            opcode = built.getOpcode();
            numSge = built.getNum_sge();
            wrId = built.getWr_id();
            sendFlags = built.getSend_flags();
            rdma.remoteAddress = built.getRdma().getRemote_addr();
            rdma.rkey = built.getRdma().getRkey();
            for (int i = 0; i < numSge; i++)
            {
                final SgeMod sge = new SgeMod();
                sge.addr = built.getSge(i).getAddr();
                sge.length = built.getSge(i).getLength();
                sge.lkey = built.getSge(i).getLkey();
                sges.add(sge);
            }
        }

        @Override
        public void setWr_id(final long wrId)
        {
            this.wrId = wrId;
        }

        @Override
        public void setSend_flags(final int sendFlags)
        {
            this.sendFlags = sendFlags;
        }

        @Override
        public long getWr_id()
        {
            return wrId;
        }

        @Override
        public int getNum_sge()
        {
            return numSge;
        }

        @Override
        public int getOpcode()
        {
            return opcode;
        }

        @Override
        public int getSend_flags()
        {
            return sendFlags;
        }

        @Override
        public SVCPostSend.RdmaMod getRdmaMod()
        {
            rdma.touched = true;
            return rdma;
        }

        @Override
        public SVCPostSend.SgeMod getSgeMod(final int index)
        {
            return sges.get(index);
        }
    }

    static final class RdmaMod implements SVCPostSend.RdmaMod
    {
        long remoteAddress;
        int rkey;
        int reserved;
        boolean touched;

        @Override
        public void setRemote_addr(final long remoteAddress)
        {
            this.remoteAddress = remoteAddress;
        }

        @Override
        public long getRemote_addr()
        {
            return remoteAddress;
        }

        @Override
        public void setRkey(final int rkey)
        {
            this.rkey = rkey;
        }

        @Override
        public int getRkey()
        {
            return rkey;
        }

        @Override
        public void setReserved(final int reserved)
        {
            this.reserved = reserved;
        }

        @Override
        public int getReserved()
        {
            return reserved;
        }
    }

    static final class SgeMod implements SVCPostSend.SgeMod
    {
        long addr;
        int length;
        int lkey;

        @Override
        public void setAddr(final long addr)
        {
            this.addr = addr;
        }

        @Override
        public long getAddr()
        {
            return addr;
        }

        @Override
        public void setLength(final int length)
        {
            this.length = length;
        }

        @Override
        public int getLength()
        {
            return length;
        }

        @Override
        public void setLkey(final int lkey)
        {
            this.lkey = lkey;
        }

        @Override
        public int getLkey()
        {
            return lkey;
        }
    }

    static final class RecvCall extends SVCPostRecv
    {
        final IbvRecvWR built;
        int executions;
        boolean freed;

        RecvCall(final IbvRecvWR built)
        {
            this.built = built;
        }

        @Override
        public RecvWRMod getWrMod(final int index)
        {
            return built::getWr_id;
        }

        @Override
        public SVCPostRecv execute()
        {
            if (freed)
            {
                throw new IllegalStateException("executed after free");
            }
            executions++;
            return this;
        }

        @Override
        public boolean isValid()
        {
            return !freed;
        }

        @Override
        public SVCPostRecv free()
        {
            if (freed)
            {
                throw new IllegalStateException("freed twice");
            }
            freed = true;
            return this;
        }
    }
}
