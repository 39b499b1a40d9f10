package io.orderflow.intake;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.common.PDStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;

/** PDFs for the intake tests: ordinary ones with text, and hostile ones. */
public final class Pdfs {

    private Pdfs() {
    }

    /** One page per line, each page showing its line. */
    public static byte[] pagePerLine(String... lines) throws IOException {
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            for (String line : lines) {
                PDPage page = new PDPage();
                document.addPage(page);
                try (PDPageContentStream content = new PDPageContentStream(document, page)) {
                    content.beginText();
                    content.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                    content.newLineAtOffset(72, 700);
                    content.showText(line);
                    content.endText();
                }
            }
            document.save(out);
            return out.toByteArray();
        }
    }

    /**
     * A compression bomb of a few kilobytes: one page whose content stream is {@code unpackedBytes} spaces compressed
     * twice ({@code /Filter [/FlateDecode /FlateDecode]}).
     */
    public static byte[] bomb(long unpackedBytes) throws IOException {
        byte[] once = deflate(unpackedBytes, null);
        byte[] twice = deflate(once.length, once);
        try (PDDocument document = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            PDPage page = new PDPage();
            document.addPage(page);
            COSStream stream = document.getDocument().createCOSStream();
            try (OutputStream raw = stream.createRawOutputStream()) {
                raw.write(twice);
            }
            COSArray filters = new COSArray();
            filters.add(COSName.FLATE_DECODE);
            filters.add(COSName.FLATE_DECODE);
            stream.setItem(COSName.FILTER, filters);
            page.setContents(new PDStream(stream));
            document.save(out);
            return out.toByteArray();
        }
    }

    /** {@code data}, or {@code length} spaces when it is null, deflated. */
    private static byte[] deflate(long length, byte[] data) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DeflaterOutputStream deflater = new DeflaterOutputStream(out,
                new Deflater(Deflater.BEST_COMPRESSION), 1 << 16)) {
            if (data != null) {
                deflater.write(data);
            } else {
                byte[] spaces = new byte[1 << 20];
                java.util.Arrays.fill(spaces, (byte) ' ');
                for (long left = length; left > 0; left -= spaces.length) {
                    deflater.write(spaces, 0, (int) Math.min(left, spaces.length));
                }
            }
        }
        return out.toByteArray();
    }
}
