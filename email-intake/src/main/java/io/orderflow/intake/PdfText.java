package io.orderflow.intake;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.contentstream.operator.Operator;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSObjectKey;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.filter.Filter;
import org.apache.pdfbox.filter.FilterFactory;
import org.apache.pdfbox.io.MemoryUsageSetting;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.text.PDFTextStripper;
import org.apache.pdfbox.text.TextPosition;

/**
 * The text of a PDF attachment, read within bounds, because the PDF is a stranger's file: a few kilobytes of nested
 * compression can unpack to gigabytes, and PDFBox unpacks a stream whole, in memory, when it reads it.
 *
 * <ul>
 *   <li><b>Memory.</b> Before any text is extracted, every stream text extraction may unpack (page contents, forms,
 *   fonts, object streams; not images, which it never unpacks) is unpacked once through a counter, and the PDF is not
 *   read when they come to more than {@link Limits#maxUnpackedBytes} together. PDFBox's own buffers for the file go to
 *   a scratch file past {@value #SCRATCH_MEMORY_BYTES} bytes of memory.</li>
 *   <li><b>Pages.</b> Only the first {@link Limits#maxPages} pages are read.</li>
 *   <li><b>Characters.</b> Extraction stops collecting characters at {@link Limits#maxChars}: the rest of the
 *   drawing instructions are skipped, not laid out.</li>
 *   <li><b>Time.</b> Unpacking and extraction stop when {@link Limits#timeBudget} is spent, and the PDF is not
 *   read.</li>
 * </ul>
 */
final class PdfText {

    /** PDFBox's buffers for one PDF, in memory; beyond this they go to a temporary file. */
    static final long SCRATCH_MEMORY_BYTES = 4L * 1024 * 1024;
    /** PDFBox's buffers for one PDF, memory and temporary file together. */
    static final long SCRATCH_TOTAL_BYTES = 64L * 1024 * 1024;
    /** Filters only images use: text extraction never unpacks them. */
    private static final Set<COSName> IMAGE_FILTERS = Set.of(COSName.DCT_DECODE, COSName.DCT_DECODE_ABBREVIATION,
            COSName.JPX_DECODE, COSName.JBIG2_DECODE, COSName.CCITTFAX_DECODE, COSName.CCITTFAX_DECODE_ABBREVIATION);
    /** How often (in operators or written bytes) the clock is read. */
    private static final int CLOCK_EVERY = 4096;

    /**
     * The bounds of reading one PDF.
     *
     * @param maxPages          pages read, from the first
     * @param maxChars          characters collected
     * @param maxUnpackedBytes  the streams' unpacked bytes together
     * @param timeBudget        unpacking and extraction together
     */
    record Limits(int maxPages, int maxChars, long maxUnpackedBytes, Duration timeBudget) {

        static final Limits DEFAULT = new Limits(100, MailReader.MAX_DOCUMENT_CHARS, 32L * 1024 * 1024,
                Duration.ofSeconds(10));
    }

    /** What came of one PDF. */
    sealed interface Outcome {
    }

    /**
     * Its text.
     *
     * @param pagesLeftOut pages after {@link Limits#maxPages} that were not read; 0 for none
     */
    record Read(String text, int pagesLeftOut) implements Outcome {
    }

    /** Not read, and why, in words for the sender. */
    record NotRead(String reason) implements Outcome {
    }

    private PdfText() {
    }

    static Outcome read(byte[] pdf, Limits limits) throws IOException {
        long deadline = System.nanoTime() + limits.timeBudget().toNanos();
        try (PDDocument document = Loader.loadPDF(pdf, "", null, null,
                MemoryUsageSetting.setupMixed(SCRATCH_MEMORY_BYTES, SCRATCH_TOTAL_BYTES).streamCache)) {
            unpackEveryStream(document, limits.maxUnpackedBytes(), deadline);
            int pages = document.getNumberOfPages();
            Stripper stripper = new Stripper(limits.maxChars(), deadline);
            stripper.setEndPage(Math.min(pages, limits.maxPages()));
            StringWriter text = new StringWriter();
            stripper.writeText(document, text);
            return new Read(text.toString(), Math.max(0, pages - limits.maxPages()));
        } catch (TooLarge e) {
            return new NotRead("its content unpacks to more than " + mib(limits.maxUnpackedBytes()));
        } catch (OutOfTime e) {
            return new NotRead("reading it took longer than " + limits.timeBudget().toSeconds() + " seconds");
        }
    }

    /**
     * Unpacks each stream of the file that text extraction may unpack into a counter, and throws {@link TooLarge}
     * once they come to more than {@code budget} bytes. Objects stored directly in the file come first: streams are
     * never inside object streams, so every object stream is measured before anything is read out of one.
     */
    private static void unpackEveryStream(PDDocument document, long budget, long deadline) throws IOException {
        long[] left = {budget};
        var cos = document.getDocument();
        List<Map.Entry<COSObjectKey, Long>> direct = new ArrayList<>();
        for (Map.Entry<COSObjectKey, Long> entry : cos.getXrefTable().entrySet()) {
            if (entry.getValue() != null && entry.getValue() >= 0) {
                direct.add(entry);
            }
        }
        for (Map.Entry<COSObjectKey, Long> entry : direct) {
            checkClock(deadline);
            COSBase object = cos.getObjectFromPool(entry.getKey()).getObject();
            if (object instanceof COSStream stream && !image(stream)) {
                left[0] -= unpackedLength(stream, left[0], deadline);
            }
        }
    }

    private static boolean image(COSStream stream) {
        if (COSName.IMAGE.equals(stream.getCOSName(COSName.SUBTYPE))) {
            return true;
        }
        return filters(stream).stream().anyMatch(IMAGE_FILTERS::contains);
    }

    private static List<COSName> filters(COSStream stream) {
        COSBase filters = stream.getFilters();
        List<COSName> names = new ArrayList<>();
        if (filters instanceof COSName name) {
            names.add(name);
        } else if (filters instanceof COSArray array) {
            for (COSBase item : array) {
                if (item instanceof COSName name) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /** The stream's unpacked length, counted up to {@code budget} (then {@link TooLarge}). */
    private static long unpackedLength(COSStream stream, long budget, long deadline) throws IOException {
        List<COSName> names = filters(stream);
        try (InputStream raw = stream.createRawInputStream()) {
            InputStream in = raw;
            for (int i = 0; i < names.size(); i++) {
                Filter filter = FilterFactory.INSTANCE.getFilter(names.get(i));
                boolean last = i == names.size() - 1;
                Counter out = new Counter(budget, deadline, !last);
                try {
                    filter.decode(in, out, stream, i);
                } catch (IOException e) {
                    return out.count; // a damaged stream: extraction will fail on it or skip it, as it may
                }
                if (last) {
                    return out.count;
                }
                in = new ByteArrayInputStream(out.bytes.toByteArray());
            }
            return in.transferTo(new Counter(budget, deadline, false));
        }
    }

    /** Counts (and for a filter in the middle of a chain, keeps) what a filter writes, within the budget. */
    private static final class Counter extends OutputStream {
        private final long budget;
        private final long deadline;
        private final ByteArrayOutputStream bytes;
        private long count;
        private long nextClock = CLOCK_EVERY;

        Counter(long budget, long deadline, boolean keep) {
            this.budget = budget;
            this.deadline = deadline;
            this.bytes = keep ? new ByteArrayOutputStream() : null;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
            if (count > budget) {
                throw new TooLarge();
            }
            if (count >= nextClock) {
                nextClock = count + CLOCK_EVERY * 256L;
                checkClock(deadline);
            }
            if (bytes != null) {
                bytes.write(b, off, len);
            }
        }
    }

    /** The text stripper with a character bound and a clock. */
    private static final class Stripper extends PDFTextStripper {
        private final int maxChars;
        private final long deadline;
        private int chars;
        private int operators;

        Stripper(int maxChars, long deadline) {
            this.maxChars = maxChars;
            this.deadline = deadline;
        }

        private boolean full() {
            return chars >= maxChars;
        }

        @Override
        public void processPage(PDPage page) throws IOException {
            checkClock(deadline);
            if (!full()) {
                super.processPage(page);
            }
        }

        @Override
        protected void processOperator(Operator operator, List<COSBase> operands) throws IOException {
            if (++operators % CLOCK_EVERY == 0) {
                checkClock(deadline);
            }
            if (!full()) {
                super.processOperator(operator, operands);
            }
        }

        @Override
        protected void processTextPosition(TextPosition text) {
            if (!full()) {
                chars += text.getUnicode() == null ? 1 : text.getUnicode().length();
                super.processTextPosition(text);
            }
        }
    }

    private static void checkClock(long deadline) {
        if (System.nanoTime() - deadline > 0) {
            throw new OutOfTime();
        }
    }

    private static String mib(long bytes) {
        return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB" : bytes + " bytes";
    }

    /** Unchecked, so no IOException handler inside PDFBox swallows it. */
    private static final class TooLarge extends RuntimeException {
        TooLarge() {
            super(null, null, false, false);
        }
    }

    private static final class OutOfTime extends RuntimeException {
        OutOfTime() {
            super(null, null, false, false);
        }
    }
}
